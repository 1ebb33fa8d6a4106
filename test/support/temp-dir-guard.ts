// Vitest global setup: the whole run gets a temp folder of its own (TMPDIR, which Node's
// os.tmpdir(), kubectl and helm all read), and at the end the run fails if anything is left
// in it. A test that creates a folder and forgets it (an emulator's kubeconfig, the demo's
// log, a chaos run's logs) is caught here, on the run that introduced it, instead of filling
// the machine's /tmp.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Caches that tools keep there on purpose (tsx compiles each child's TypeScript once). */
const TOOL_CACHES = [/^tsx-\d+$/, /^node-compile-cache$/];

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const runDir = mkdtempSync(join(tmpdir(), 'agent-operator-tests-'));
  process.env.TMPDIR = runDir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    const left = readdirSync(runDir).filter((name) => !TOOL_CACHES.some((cache) => cache.test(name)));
    rmSync(runDir, { recursive: true, force: true });
    if (left.length > 0) {
      throw new Error(`tests left ${left.length} entries in the temp folder: ${left.sort().join(', ')}`);
    }
  };
}
