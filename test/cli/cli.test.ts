// The command line as a newcomer meets it, with kubectl's habits: --version and `version`, help
// at every level with examples, one-line errors for what it does not know (exit 2), durations
// with units, and `npx agent-operator` working in a checkout. Output is captured, so a passing
// run prints nothing.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dispatch as dispatchProduction } from '../../src/cli.js';
import { parseDurationFlag } from '../../src/command-line/duration-flag.js';
import { dispatch, type Output } from '../../src/dev-cli.js';
import { parseInvokeArgs } from '../../src/invoke/args.js';
import { parseOperatorConfig } from '../../src/operator/config.js';
import { packageVersion } from '../../src/version.js';
import { REPO_ROOT } from '../packaging/support/paths.js';
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

  it.each([
    'run',
    'invoke',
    'connection',
    'version',
    'demo',
    'crds',
    'emulate control-plane',
    'emulate kube',
  ])('%s --help shows its flags and examples', async (command) => {
    const { code, stdout } = await cli([...command.split(' '), '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain(`agent-operator ${command}`);
    expect(stdout).toMatch(/Examples:\n {2}\S/);
  });
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

describe('version', () => {
  it('prints the version, the commit and the Node.js version', async () => {
    const { code, stdout } = await cli(
      ['version'],
      { AGENT_OPERATOR_COMMIT: '0123456789abcdef' },
      'src/cli.ts',
    );
    expect(code).toBe(0);
    expect(stdout).toBe(
      `agent-operator ${packageVersion()}\ncommit 0123456789abcdef\nnode ${process.version}\n`,
    );
  });

  it('--output json gives the same as an object', async () => {
    const { code, stdout } = await cli(
      ['version', '-o', 'json'],
      { AGENT_OPERATOR_COMMIT: 'abc123' },
      'src/cli.ts',
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      version: packageVersion(),
      commit: 'abc123',
      node: process.version,
    });
  });
});

describe('a bad flag: one line naming it and where the help is, exit 2', () => {
  it.each([
    {
      argv: ['run', '--bogus'],
      says: 'agent-operator run: unknown flag --bogus (see agent-operator run --help)',
    },
    {
      argv: ['run', '--resync-period', 'soon'],
      says: 'agent-operator run: --resync-period: must be a duration such as 30s, 2m or 1h (a bare number is seconds), at least 1000 ms; got "soon" (see agent-operator run --help)',
    },
    {
      argv: ['invoke', 'bot', 'hi', '--timeout'],
      says: 'agent-operator invoke: --timeout needs a value (see agent-operator invoke --help)',
    },
    {
      argv: ['demo', '--keep=yes'],
      says: 'agent-operator demo: --keep takes no value (see agent-operator demo --help)',
    },
    {
      argv: ['connection', 'check', 'eu', '--bogus'],
      says: 'agent-operator connection check: unknown flag --bogus (see agent-operator connection check --help)',
    },
    {
      argv: ['version', '-o', 'yaml'],
      says: 'agent-operator version: --output must be "text" or "json"; got "yaml" (see agent-operator version --help)',
    },
    {
      argv: ['no-such-command'],
      says: 'agent-operator: unknown command "no-such-command" (see agent-operator --help)',
    },
  ])('$argv', async ({ argv, says }) => {
    const { code, stdout, stderr } = await cli(argv, { AGENT_OPERATOR_API_KEY: 'k' });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`${says}\n`);
  });
});

describe('durations: a number with its unit, or a bare number of seconds', () => {
  it.each([
    ['250ms', 250],
    ['30s', 30_000],
    ['2m', 120_000],
    ['1h30m', 5_400_000],
    ['45', 45_000],
    ['1.5', 1_500],
    ['soon', undefined],
    ['', undefined],
    ['-5', undefined],
  ])('%j', (text, ms) => {
    expect(parseDurationFlag(text)).toBe(ms);
  });

  it('every duration flag takes them: invoke --timeout, demo --timeout, the operator', () => {
    const invoke = parseInvokeArgs(['bot', 'hi', '--timeout', '2m'], { AGENT_OPERATOR_API_KEY: 'k' });
    expect(invoke !== 'help' && invoke.timeoutMs).toBe(120_000);
    const seconds = parseInvokeArgs(['bot', 'hi', '--timeout', '90'], { AGENT_OPERATOR_API_KEY: 'k' });
    expect(seconds !== 'help' && seconds.timeoutMs).toBe(90_000);
    const operator = parseOperatorConfig({
      argv: ['--resync-period', '300', '--poll-interval', '500ms'],
      env: { AGENT_OPERATOR_API_KEY: 'k' },
      readFile: () => '',
    });
    expect(operator.help === false && operator.config.resyncPeriodMs).toBe(300_000);
    expect(operator.help === false && operator.config.pollIntervalMs).toBe(500);
  });
});

describe('`npx agent-operator` in a checkout after npm ci', () => {
  it("runs the package's own bin (what the docs' commands use), with no install", async () => {
    // A copy of the package's manifest, its bin a stub that names itself: npx must find the
    // bin through package.json alone, as in a fresh clone (where `npm ci` builds dist/).
    const manifest = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      bin: Record<string, string>;
    };
    const bin = manifest.bin['agent-operator'];
    expect(bin).toBe('dist/dev-cli.js');
    const dir = await mkdtemp(join(tmpdir(), 'npx-bin-'));
    try {
      await writeFile(
        join(dir, 'package.json'),
        JSON.stringify({ name: manifest.name, version: manifest.version, bin: manifest.bin }),
      );
      await mkdir(join(dir, 'dist'));
      await writeFile(
        join(dir, bin ?? ''),
        '#!/usr/bin/env node\nconsole.log(`own bin: ${process.argv.slice(2).join(" ")}`);\n',
        {
          mode: 0o755,
        },
      );
      const result = await run('npx', ['--offline', 'agent-operator', 'version'], {
        cwd: dir,
        env: { ...process.env, npm_config_update_notifier: 'false' },
      });
      expect(result.stdout).toBe('own bin: version\n');
      expect(result.code).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the package version', () => {
  it('is the manifest version, and "unknown" (never a crash at start) when the manifest cannot be read', async () => {
    const manifest = JSON.parse(
      await readFile(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8'),
    ) as {
      version: string;
    };
    expect(packageVersion()).toBe(manifest.version);
    const empty = await mkdtemp(join(tmpdir(), 'no-manifest-'));
    try {
      expect(packageVersion(`${empty}/`)).toBe('unknown');
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
