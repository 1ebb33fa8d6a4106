// `demo --keep` as a newcomer follows it: the banner's commands pasted into a shell, with the
// real kubectl against the demo's own Kubernetes emulator. The objects carry kubectl's
// last-applied-configuration, so re-applying the manifest the banner names is "unchanged"
// until it is edited, and an edit rolls out; examples/ applied as it is says what it does
// (it names the image from before the demo's update). Ctrl-C then says what it stopped and
// that nothing is left running.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KUBECTL, requireTool } from '../packaging/support/paths.js';
import { run } from '../packaging/support/run.js';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

let dir: string;
let demo: ChildProcess;
let output = '';
let exited: Promise<number | null>;
/** From the banner: the demo's kubeconfig, and the manifest to edit and re-apply. */
let kubeconfig: string;
let manifest: string;

function kubectl(args: string[]) {
  return run(requireTool(KUBECTL), ['--kubeconfig', kubeconfig, '--request-timeout=20s', ...args]);
}

async function image(): Promise<string> {
  const read = await kubectl([
    'get',
    'agd',
    'support-bot',
    '-n',
    'agents-demo',
    '-o',
    'jsonpath={.spec.sourceRevisionConfig.imageUri}',
  ]);
  return read.stdout;
}

function printed(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (!output.includes(text)) return;
      demo.stdout?.off('data', check);
      resolve();
    };
    demo.stdout?.on('data', check);
    check();
    void exited.then(() => reject(new Error(`the demo ended before printing "${text}":\n${output}`)));
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'demo-keep-test-'));
  demo = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/dev-cli.ts', 'demo', '--keep', '--revision-phase-ms', '60', '--timeout', '60s'],
    {
      env: { ...process.env, CI: 'true', AGENT_OPERATOR_API_KEY: '', TMPDIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  demo.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  exited = new Promise((resolve) => demo.on('close', resolve));
  await printed('operator log:');
  kubeconfig = /kubectl --kubeconfig (\S+) get agd -A -w/.exec(output)?.[1] ?? '';
  manifest = /kubectl --kubeconfig \S+ apply -f (\S+)/.exec(output)?.[1] ?? '';
}, 90_000);

afterAll(async () => {
  if (demo.exitCode === null) demo.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

describe('demo --keep, followed as its banner says', () => {
  it('names a manifest holding the update it rolled out, and examples/ as the version before it', async () => {
    expect(manifest).toMatch(/support-bot\.yaml$/);
    expect(await readFile(manifest, 'utf8')).toContain(
      'imageUri: registry.example.com/support-bot/agent:demo-update',
    );
    expect(output).toContain(
      'examples/30-external-container-agent.yaml still says imageUri registry.example.com/support-bot/agent:1.0.0: applying it as it is rolls support-bot back from imageUri registry.example.com/support-bot/agent:demo-update',
    );
    const annotation = await kubectl([
      'get',
      'agd',
      'support-bot',
      '-n',
      'agents-demo',
      '-o',
      'jsonpath={.metadata.annotations}',
    ]);
    expect(JSON.parse(annotation.stdout)).toHaveProperty([LAST_APPLIED]);
  });

  it.each([
    { agent: 'support-bot', connection: 'the default one, with the key the banner sets' },
    { agent: 'support-bot-eu', connection: "its EU PlatformConnection, with that connection's key" },
  ])("the banner's invoke line for $agent answers ($connection)", async ({ agent }) => {
    const line = output
      .split('\n')
      .find((text) => text.includes('npx agent-operator invoke') && text.includes(` ${agent} "hello"`));
    expect(line, output).toBeDefined();
    // The line as a shell would run it, with the checkout's entry point for `npx agent-operator`.
    const [assignments = '', command = ''] = (line ?? '').trim().split('npx agent-operator ');
    const env = Object.fromEntries(
      assignments
        .split(' ')
        .filter((word) => word.includes('='))
        .map((word) => word.split('=', 2) as [string, string]),
    );
    const argv = command.replace(/ "hello"$/, '').split(' ');
    const result = await run(process.execPath, ['--import', 'tsx', 'src/dev-cli.ts', ...argv, 'hello'], {
      env: { ...process.env, AGENT_OPERATOR_API_KEY: '', ...env },
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('You said: hello.');
    expect(result.code).toBe(0);
  });

  it('kubectl apply of that manifest, unedited, changes nothing and warns about nothing', async () => {
    const applied = await kubectl(['apply', '-f', manifest]);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toBe('agentdeployment.agentplatform.io/support-bot unchanged\n');
    expect(await image()).toBe('registry.example.com/support-bot/agent:demo-update');
  });

  it('an edit to it rolls out, and the object keeps the demo label the file does not have', async () => {
    const text = await readFile(manifest, 'utf8');
    await writeFile(
      manifest,
      text.replace(
        'imageUri: registry.example.com/support-bot/agent:demo-update',
        'imageUri: registry.example.com/support-bot/agent:edited-by-hand',
      ),
    );
    const applied = await kubectl(['apply', '-f', manifest]);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toBe('agentdeployment.agentplatform.io/support-bot configured\n');
    expect(await image()).toBe('registry.example.com/support-bot/agent:edited-by-hand');
    const label = await kubectl([
      'get',
      'agd',
      'support-bot',
      '-n',
      'agents-demo',
      '-o',
      'jsonpath={.metadata.labels.app\\.kubernetes\\.io/managed-by}',
    ]);
    expect(label.stdout).toBe('agent-operator-demo');
  });

  it('examples/ applied as it is is a three-way merge (no warning): it sets the image the file names', async () => {
    const example = /\(([^ ]+) still says imageUri/.exec(output)?.[1] ?? '';
    expect(example).toMatch(/examples\/30-external-container-agent\.yaml$/);
    const applied = await kubectl(['apply', '-f', example]);
    expect(applied.stderr).not.toContain(
      'missing the kubectl.kubernetes.io/last-applied-configuration annotation',
    );
    expect(applied.stdout).toBe('agentdeployment.agentplatform.io/support-bot configured\n');
    expect(await image()).toBe('registry.example.com/support-bot/agent:1.0.0');
  });

  it('Ctrl-C says what it stopped, that nothing is left running, and what it removed', async () => {
    const before = output.length;
    demo.kill('SIGINT');
    expect(await exited).toBe(0);
    const closing = output.slice(before);
    expect(closing).toContain('== Stopping (Ctrl-C)');
    expect(closing).toContain(
      'stopped the operator and the Kubernetes API emulator and the control-plane emulators: they ran in this process and held their state in memory, so none of it is left running',
    );
    expect(closing).toMatch(
      /removed \S+agent-operator-demo-\S+ \(kubeconfig, operator log, the updated manifest\)/,
    );
    expect((await readdir(dir)).filter((name) => name.startsWith('agent-operator-demo-'))).toEqual([]);
  });
});
