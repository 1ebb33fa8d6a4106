// The CLI reads a kubeconfig as the real kubectl does, checked side by side with kubectl
// against the same Kubernetes emulator: with no -n, the namespace of the context; --context
// picks another context (and its namespace); KUBECONFIG stands in for --kubeconfig; -n wins
// over the context. Every command that reads a kubeconfig takes --context and --kubeconfig.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as connectionCheck } from '../../src/connection-check/cli.js';
import { KUBECTL, REPO_ROOT, requireTool } from '../packaging/support/paths.js';
import { run } from '../packaging/support/run.js';
import {
  KEY,
  createAgent,
  createConnection,
  createNamespace,
  invoke,
  startInvokeWorld,
  type InvokeWorld,
} from './fixture.js';

let world: InvokeWorld;
/** Two contexts on the emulator: `team-a` (current, namespace team-a) and `team-b` (namespace team-b). */
let kubeconfig: string;
/** The user's key, and the control plane the agents' addresses are on. */
const USER_ENV: NodeJS.ProcessEnv = { AGENT_OPERATOR_API_KEY: KEY };

function kubectl(args: string[], env: NodeJS.ProcessEnv = {}) {
  return run(requireTool(KUBECTL), ['--request-timeout=20s', ...args], { env: { ...process.env, ...env } });
}

/** The production program in a child process, as a user's shell starts it. */
function cli(args: string[], env: NodeJS.ProcessEnv) {
  return run(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
  });
}

interface Kubeconfig {
  clusters: Array<{ name: string }>;
  users: Array<{ name: string }>;
  contexts: Array<{ name: string; context: Record<string, string> }>;
  'current-context': string;
}

beforeAll(async () => {
  world = await startInvokeWorld();
  USER_ENV.AGENT_OPERATOR_CONTROL_PLANE_URL = world.controlPlaneUrl;
  for (const namespace of ['team-a', 'team-b']) await createNamespace(world.kube, namespace);
  await createAgent(world, 'team-a', 'bot-a');
  await createAgent(world, 'team-b', 'bot-b');
  for (const namespace of ['team-a', 'team-b'])
    await createConnection(world, { namespace, name: 'conn', url: world.controlPlaneUrl, key: KEY });
  const written = yaml.load(await readFile(world.kubeconfig, 'utf8')) as Kubeconfig;
  const cluster = written.clusters[0]?.name ?? '';
  const user = written.users[0]?.name ?? '';
  kubeconfig = join(world.dir, 'two-contexts');
  await writeFile(
    kubeconfig,
    yaml.dump({
      ...written,
      contexts: ['team-a', 'team-b'].map((name) => ({ name, context: { cluster, user, namespace: name } })),
      'current-context': 'team-a',
    }),
  );
});

afterAll(async () => {
  await world.close();
});

describe('the kubeconfig, read as kubectl reads it', () => {
  it("with no -n, works in the current context's namespace, as kubectl does", async () => {
    const listed = await kubectl(['--kubeconfig', kubeconfig, 'get', 'agd', '-o', 'name']);
    expect(listed.stdout.trim()).toBe('agentdeployment.agentplatform.io/bot-a');
    const result = await invoke(['--kubeconfig', kubeconfig, 'bot-a', 'hello A'], USER_ENV);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('You said: hello A.');
  });

  it("--context picks another context and its namespace, as kubectl's does", async () => {
    const listed = await kubectl([
      '--kubeconfig',
      kubeconfig,
      '--context',
      'team-b',
      'get',
      'agd',
      '-o',
      'name',
    ]);
    expect(listed.stdout.trim()).toBe('agentdeployment.agentplatform.io/bot-b');
    const missing = await kubectl(['--kubeconfig', kubeconfig, '--context', 'team-b', 'get', 'agd', 'bot-a']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('not found');

    const found = await invoke(
      ['--kubeconfig', kubeconfig, '--context', 'team-b', 'bot-b', 'hello B'],
      USER_ENV,
    );
    expect(found.code).toBe(0);
    expect(found.stdout).toContain('You said: hello B.');
    const notThere = await invoke(
      ['--kubeconfig', kubeconfig, '--context', 'team-b', 'bot-a', 'hi'],
      USER_ENV,
    );
    expect(notThere.code).toBe(1);
    expect(notThere.stderr).toContain('agentdeployment "bot-a" not found in namespace "team-b"');
  });

  it('-n wins over the context, as with kubectl', async () => {
    const listed = await kubectl(['--kubeconfig', kubeconfig, '-n', 'team-b', 'get', 'agd', '-o', 'name']);
    expect(listed.stdout.trim()).toBe('agentdeployment.agentplatform.io/bot-b');
    const result = await invoke(['--kubeconfig', kubeconfig, '-n', 'team-b', 'bot-b', 'hi'], USER_ENV);
    expect(result.code).toBe(0);
  });

  it('an unknown --context is one clear error, as kubectl refuses it', async () => {
    const refused = await kubectl(['--kubeconfig', kubeconfig, '--context', 'nope', 'get', 'agd']);
    expect(refused.code).not.toBe(0);
    const result = await invoke(['--kubeconfig', kubeconfig, '--context', 'nope', 'bot-a', 'hi'], USER_ENV);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `agent-operator invoke: --context: no context named "nope" in ${kubeconfig}\n`,
    );
  });

  it('reads KUBECONFIG when there is no --kubeconfig, with --context, from a shell', async () => {
    const env = { KUBECONFIG: kubeconfig, ...USER_ENV };
    const listed = await kubectl(['--context', 'team-b', 'get', 'agd', '-o', 'name'], env);
    expect(listed.stdout.trim()).toBe('agentdeployment.agentplatform.io/bot-b');
    const result = await cli(['invoke', '--context', 'team-b', 'bot-b', 'from a shell'], env);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('You said: from a shell.');
  });

  it('merges several KUBECONFIG files as kubectl does: contexts in one, clusters and users in another', async () => {
    const full = yaml.load(await readFile(kubeconfig, 'utf8')) as Kubeconfig;
    const contexts = join(world.dir, 'contexts-only');
    const credentials = join(world.dir, 'credentials-only');
    await writeFile(
      contexts,
      yaml.dump({ apiVersion: 'v1', kind: 'Config', contexts: full.contexts, 'current-context': 'team-b' }),
    );
    await writeFile(
      credentials,
      yaml.dump({ apiVersion: 'v1', kind: 'Config', clusters: full.clusters, users: full.users }),
    );
    const env = { KUBECONFIG: `${contexts}:${credentials}`, ...USER_ENV };
    const listed = await kubectl(['get', 'agd', '-o', 'name'], env);
    expect(listed.stdout.trim()).toBe('agentdeployment.agentplatform.io/bot-b');
    const result = await cli(['invoke', 'bot-b', 'merged'], env);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('You said: merged.');
  });

  it("connection check: the context's namespace without -n, and --context", async () => {
    const check = async (args: string[]) => {
      let out = '';
      await connectionCheck(['check', 'conn', '--kubeconfig', kubeconfig, ...args], {
        stdout: (text) => (out += text),
        stderr: (text) => (out += text),
      });
      return out;
    };
    const listed = await kubectl([
      '--kubeconfig',
      kubeconfig,
      '--context',
      'team-b',
      'get',
      'pconn',
      '-o',
      'name',
    ]);
    expect(listed.stdout.trim()).toBe('platformconnection.agentplatform.io/conn');
    expect(await check([])).toContain('PlatformConnection team-a/conn: control plane');
    expect(await check(['--context', 'team-b'])).toContain('PlatformConnection team-b/conn: control plane');
  });

  it('run takes --context too: an unknown one stops it before it starts, naming it', async () => {
    const result = await cli(['run', '--kubeconfig', kubeconfig, '--context', 'nope'], USER_ENV);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`--context: no context named "nope" in ${kubeconfig}`);
  });
});
