// The command line as a newcomer meets it: --version, help at every level with examples, and
// clear errors for what it does not know. Output is captured, so a passing run prints nothing.
import { describe, expect, it } from 'vitest';
import { dispatch as dispatchProduction } from '../../src/cli.js';
import { dispatch, type Output } from '../../src/dev-cli.js';
import { run, type RunResult } from '../packaging/support/run.js';

function captured(): Output & { out: string; err: string } {
  const sink = {
    out: '',
    err: '',
    stdout: (text: string) => void (sink.out += text),
    stderr: (text: string) => void (sink.err += text),
  };
  return sink;
}

/**
 * Runs a CLI in a child process, for the commands that write to the process's own stdout: the
 * development program (src/dev-cli.ts, the npm bin) unless `entry` names the production one.
 */
function cli(args: string[], env: NodeJS.ProcessEnv = {}, entry = 'src/dev-cli.ts'): Promise<RunResult> {
  return run(process.execPath, ['--import', 'tsx', entry, ...args], {
    env: { ...process.env, ...env },
  });
}

describe('cli dispatch (the development program: production commands, demo, emulators)', () => {
  it('rejects an unknown command with exit code 2, naming it, on stderr', async () => {
    const io = captured();
    expect(await dispatch(['no-such-command'], io)).toBe(2);
    expect(io.err).toContain('unknown command "no-such-command"');
    expect(io.out).toBe('');
  });

  it('prints usage with examples and exits 0 for --help', async () => {
    const io = captured();
    expect(await dispatch(['--help'], io)).toBe(0);
    expect(io.out).toMatch(/Examples:\n {2}agent-operator demo/);
    expect(io.out).toContain('-V, --version');
  });

  it('shows the emulate group for `emulate --help`, and asks for a command for bare `emulate`', async () => {
    const help = captured();
    expect(await dispatch(['emulate', '--help'], help)).toBe(0);
    expect(help.out).toMatch(/Usage: agent-operator emulate <command>/);
    expect(help.out).toMatch(/control-plane\s+serve the control-plane emulator/);
    expect(help.out).toMatch(/kube\s+serve the Kubernetes API server emulator/);
    const bare = captured();
    expect(await dispatch(['emulate'], bare)).toBe(2);
    expect(bare.err).toContain('"emulate" needs a command');
  });

  it('prints the version and the commit from AGENT_OPERATOR_COMMIT (what the image sets)', async () => {
    const { code, stdout } = await cli(['--version'], { AGENT_OPERATOR_COMMIT: '0123456789abcdef' });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^agent-operator \d+\.\d+\.\d+\S* \(commit 0123456789abcdef\)\n$/);
  });

  it.each(['run', 'demo', 'crds', 'emulate control-plane', 'emulate kube'])(
    '%s --help shows its flags and examples',
    async (command) => {
      const { code, stdout } = await cli([...command.split(' '), '--help']);
      expect(code).toBe(0);
      expect(stdout).toContain(`agent-operator ${command}`);
      expect(stdout).toMatch(/Examples:\n {2}\S/);
    },
  );
});

describe('the production program (src/cli.ts, what the image runs)', () => {
  it('offers the operator and its tools, and neither the demo nor an emulator', async () => {
    const io = captured();
    expect(await dispatchProduction(['--help'], io)).toBe(0);
    expect(io.out).toMatch(/\n {2}run\s+run the operator/);
    expect(io.out).toMatch(/\n {2}crds\s/);
    expect(io.out).not.toMatch(/demo|emulat/);
  });

  it.each(['demo', 'emulate kube', 'emulate control-plane'])(
    'rejects "%s" as an unknown command',
    async (command) => {
      const io = captured();
      expect(await dispatchProduction(command.split(' '), io)).toBe(2);
      expect(io.err).toContain(`unknown command "${command}"`);
    },
  );

  it('prints the version when started directly', async () => {
    const { code, stdout } = await cli(['--version'], { AGENT_OPERATOR_COMMIT: 'abc123' }, 'src/cli.ts');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^agent-operator \S+ \(commit abc123\)\n$/);
  });
});
