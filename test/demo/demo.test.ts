// The README's run command, run as a user would in CI: not a terminal, CI=true. It must
// converge every example, roll out the update, print its summary and exit 0.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run, type RunResult } from '../packaging/support/run.js';

// The demo's own temp folder (kubeconfig, operator log; kept after a failure) goes in here.
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'demo-test-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function runDemo(args: string[]): Promise<RunResult> {
  return run(process.execPath, ['--import', 'tsx', 'src/dev-cli.ts', 'demo', ...args], {
    env: { ...process.env, CI: 'true', AGENT_OPERATOR_API_KEY: '', TMPDIR: dir },
  });
}

describe('agent-operator demo', () => {
  it('brings every example to Ready, rolls out an update, and exits 0 with a summary', async () => {
    const { code, stdout, stderr } = await runDemo(['--revision-phase-ms', '60', '--timeout', '60s']);
    expect(stderr).not.toMatch(/Unhandled|TypeError|ReferenceError/);
    expect(code, stdout).toBe(0);
    // Plain output: no escape codes in a log.
    expect(stdout).not.toContain('\x1b[');
    // The revision's progress is shown. Which intermediate phases appear depends on where
    // the 60 ms phases fall between two 150 ms display polls; CREATING (written with the
    // create) and DEPLOYED are always published, in that order.
    const states = [...stdout.matchAll(/research-assistant: revision ([A-Z_]+)/g)].map((m) => m[1]);
    expect(states[0]).toBe('CREATING');
    expect(states.at(-1)).toBe('DEPLOYED');
    expect(new Set(states).size).toBeGreaterThanOrEqual(2);
    expect(stdout).toMatch(/support-bot: revision DEPLOYED, active [0-9a-f]{8}, Ready=True \(Deployed\)/);
    // One consistent picture per line: never a DEPLOYED revision with nothing active yet.
    expect(stdout).not.toMatch(/revision DEPLOYED, active -/);
    // Data deletion: the trace erasure is verified after the simulated job, the examples at once.
    const tracePhases = [...stdout.matchAll(/tracedeletion\/erase-demo-user: ([A-Za-z]+)/g)].map((m) => m[1]);
    expect(tracePhases).toEqual(['Submitting', 'Submitted', 'Verifying', 'Completed']);
    expect(stdout).toMatch(
      /exampledeletion\/clear-eval-demo: Completed \(2 example\(s\) deleted and verified\)/,
    );
    expect(stdout).toMatch(/Updating support-bot: image .*:demo-update/);
    expect(stdout).toMatch(/update rolled out in \d+\.\d s/);
    // The updated revision answers (the emulated agent echoes the message and names its image).
    expect(stdout).toMatch(/support-bot answered: ".*Hello from the agent-operator demo.*:demo-update/);
    expect(stdout).toMatch(/429 responses received: 0/);
    const calls = /control-plane calls: (\d+)/.exec(stdout);
    expect(Number(calls?.[1])).toBeGreaterThan(0);
    // Two connections with an agent on each: the default (US) and the EU PlatformConnection.
    expect(stdout).toMatch(
      /connections: default \(us, [^)]*\) and PlatformConnection agents-demo\/eu [^\n]*: Ready/,
    );
    expect(stdout).toMatch(
      /support-bot: revision DEPLOYED, [^\n]*Ready=True \(Deployed\), connection default/,
    );
    expect(stdout).toMatch(/support-bot-eu: revision DEPLOYED, [^\n]*Ready=True \(Deployed\), connection eu/);
    expect(stdout).toMatch(/demo: all 3 AgentDeployments Ready, update deployed/);
  });

  it('exits non-zero with the reason when it cannot finish in time', async () => {
    const { code, stdout } = await runDemo(['--revision-phase-ms', '5000', '--timeout', '2s']);
    expect(code).toBe(1);
    expect(stdout).toMatch(/demo failed: timed out after 2s; not Ready: /);
  });

  it('rejects a bad flag naming it', async () => {
    const { code, stderr } = await runDemo(['--timeout', 'soon']);
    expect(code).toBe(2);
    expect(stderr).toContain('--timeout: must be a duration');
  });
});
