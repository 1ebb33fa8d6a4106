// Vitest global setup: the whole run gets a temp folder of its own (TMPDIR, which Node's
// os.tmpdir(), kubectl and helm all read), and at the end the run fails if anything is left
// in it. A test that creates a folder and forgets it (an emulator's kubeconfig, the demo's
// log, a chaos run's logs) is caught here, on the run that introduced it, instead of filling
// the machine's /tmp.
//
// Vitest tears global setups down after reporters have finished, so this check does not throw
// (a throw would also stop the summary reporter's closing line from being printed at all): it
// records what it found for that line, says so on stderr and sets the exit code.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordTempLeftovers } from './temp-leftovers.js';

/** Caches that tools keep there on purpose (tsx compiles each child's TypeScript once). */
const TOOL_CACHES = [/^tsx-\d+$/, /^node-compile-cache$/];

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const runDir = mkdtempSync(join(tmpdir(), 'agent-operator-tests-'));
  process.env.TMPDIR = runDir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    const left = readdirSync(runDir)
      .filter((name) => !TOOL_CACHES.some((cache) => cache.test(name)))
      .sort();
    rmSync(runDir, { recursive: true, force: true });
    recordTempLeftovers(left);
    if (left.length > 0) {
      process.stderr.write(`\ntests left ${left.length} entries in the temp folder: ${left.join(', ')}\n`);
      process.exitCode = 1;
    }
  };
}
