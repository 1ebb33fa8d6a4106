// `demo --kubeconfig` against a cluster that is not the demo's: a kube emulator started
// on its own stands for a real cluster, with the CRD installed and an unrelated
// AgentDeployment in another namespace. The demo must leave that object untouched (no
// finalizer, no ids, no status), remove everything it created, refuse a namespace it does
// not own, and start from a clean slate after an earlier `--keep` run.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentDeploymentCrd } from '../../src/api/crd/agentdeployment-crd.js';
import { AGENT_DEPLOYMENTS } from '../../src/operator/operator.js';
import { PLATFORM_CONNECTIONS } from '../../src/reconcilers/connection/setup.js';
import { kubeClientFrom, loadClusterAccess } from '../../src/runtime/kube/cluster-access.js';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import { isNotFound } from '../../src/runtime/kube/errors.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import type { ResourceType } from '../../src/runtime/kube/resource.js';
import { startKubeEmulator, type KubeEmulator } from '../../src/sim/kube/index.js';

const NAMESPACES: ResourceType = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };
const SECRETS: ResourceType = { group: '', version: 'v1', plural: 'secrets' };
const CONFIGMAPS: ResourceType = { group: '', version: 'v1', plural: 'configmaps' };
const CRDS: ResourceType = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  namespaced: false,
};

let dir: string;
let kubeconfig: string;
let cluster: KubeEmulator;
let client: KubeClient;
let close: () => void;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'demo-cluster-test-'));
  kubeconfig = join(dir, 'kubeconfig');
  cluster = await startKubeEmulator({ kubeconfigPath: kubeconfig });
  const access = kubeClientFrom(await loadClusterAccess({ kind: 'file', path: kubeconfig }));
  client = access.client;
  close = () => access.transport.close?.();
});

afterEach(async () => {
  close();
  await cluster.close();
  await rm(dir, { recursive: true, force: true });
});

interface DemoRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the demo with its temp folder inside the test's, so that nothing is left in the real one. */
function startDemo(args: string[]): { child: ChildProcess; done: Promise<DemoRun>; output: () => string } {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/dev-cli.ts',
      'demo',
      '--kubeconfig',
      kubeconfig,
      '--revision-phase-ms',
      '60',
      ...args,
    ],
    {
      env: { ...process.env, CI: 'true', AGENT_OPERATOR_API_KEY: '', TMPDIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const done = new Promise<DemoRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done, output: () => stdout };
}

async function find(
  type: ResourceType,
  namespace: string | undefined,
  name: string,
): Promise<KubeObject | undefined> {
  try {
    return await client.get(type, namespace, name);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

async function installCrd(): Promise<void> {
  await client.create(CRDS, agentDeploymentCrd() as unknown as KubeObject);
}

async function unrelatedAgent(): Promise<KubeObject> {
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
  return client.create(AGENT_DEPLOYMENTS, {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name: 'prod-bot', namespace: 'team-a' },
    spec: {
      source: 'external_container',
      sourceConfig: { listenerId: '53a22649-b624-5585-b661-5f2b13429240' },
      sourceRevisionConfig: { imageUri: 'registry.example.com/prod-bot:1.0.0' },
    },
  });
}

async function demoObjectsLeft(): Promise<string[]> {
  const left: string[] = [];
  if (await find(CRDS, undefined, 'agentdeployments.agentplatform.io')) {
    const agents = await client.listAll(AGENT_DEPLOYMENTS, { namespace: 'agents-demo' });
    left.push(...agents.items.map((o) => `agd/${o.metadata.name ?? ''}`));
  }
  if (await find(CRDS, undefined, 'platformconnections.agentplatform.io')) {
    const connections = await client.listAll(PLATFORM_CONNECTIONS, { namespace: 'agents-demo' });
    left.push(...connections.items.map((o) => `platformconnection/${o.metadata.name ?? ''}`));
  }
  for (const type of [SECRETS, CONFIGMAPS]) {
    const items = await client.listAll(type, { namespace: 'agents-demo' });
    left.push(...items.items.map((o) => `${type.plural}/${o.metadata.name ?? ''}`));
  }
  if (await find(NAMESPACES, undefined, 'agents-demo')) left.push('namespace/agents-demo');
  return left;
}

function waitForOutput(run: ReturnType<typeof startDemo>, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (run.output().includes(text)) {
        run.child.stdout?.off('data', check);
        resolve();
      }
    };
    run.child.stdout?.on('data', check);
    run.done.then(() => reject(new Error(`demo ended before printing "${text}":\n${run.output()}`)), reject);
  });
}

describe('demo --kubeconfig against a cluster it does not own', () => {
  it('touches only its own namespace and removes everything it created, keeping a CRD it found installed', async () => {
    await installCrd();
    const before = await unrelatedAgent();

    const { code, stdout, stderr } = await startDemo([]).done;
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    expect(stdout).toContain('operator running in agents-demo;');
    expect(stdout).toContain(
      'using the CustomResourceDefinition agentdeployments.agentplatform.io already installed',
    );

    const after = await client.get(AGENT_DEPLOYMENTS, 'team-a', 'prod-bot');
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.metadata.finalizers ?? []).toEqual([]);
    expect(after.metadata.annotations ?? {}).toEqual({});
    expect(after.status).toBeUndefined();

    expect(await demoObjectsLeft()).toEqual([]);
    expect(await find(CRDS, undefined, 'agentdeployments.agentplatform.io')).toBeDefined();
    // Its temp folder (kubeconfig, operator log) went with it.
    expect((await readdir(dir)).filter((name) => name.startsWith('agent-operator-demo-'))).toEqual([]);
  }, 60_000);

  it('removes the CRD when it installed it', async () => {
    const { code, stdout } = await startDemo([]).done;
    expect(code, stdout).toBe(0);
    expect(stdout).toContain('installed the CustomResourceDefinition agentdeployments.agentplatform.io');
    expect(await demoObjectsLeft()).toEqual([]);
    expect(await find(CRDS, undefined, 'agentdeployments.agentplatform.io')).toBeUndefined();
  }, 60_000);

  it('refuses a namespace of the same name that it did not create, and changes nothing', async () => {
    await client.create(NAMESPACES, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'agents-demo' },
    });
    const { code, stdout } = await startDemo([]).done;
    expect(code).toBe(1);
    expect(stdout).toContain('namespace agents-demo already exists and was not created by the demo');
    expect(await find(NAMESPACES, undefined, 'agents-demo')).toBeDefined();
    expect(await find(CRDS, undefined, 'agentdeployments.agentplatform.io')).toBeUndefined();
  }, 60_000);

  it('after --keep, a new run empties the earlier namespace first and times from a clean start', async () => {
    const kept = startDemo(['--keep']);
    await waitForOutput(kept, 'press Ctrl-C to stop');
    kept.child.kill('SIGINT');
    const first = await kept.done;
    expect(first.code, first.stdout).toBe(0);
    expect(first.stdout).toContain('left in place (--keep): namespace agents-demo');
    // Ctrl-C says what it left and how to remove it.
    expect(first.stdout).toContain('== Stopping (Ctrl-C)');
    expect(first.stdout).toContain(
      `to remove it: npx agent-operator demo --kubeconfig ${kubeconfig}   # empties it through its own operator first`,
    );
    expect(await demoObjectsLeft()).toContain('agd/support-bot');

    const { code, stdout } = await startDemo([]).done;
    expect(code, stdout).toBe(0);
    expect(stdout).toContain('namespace agents-demo is left from an earlier demo run: emptying it first');
    // Fresh objects: the first row of each is not Ready, as it would be if read back from
    // the earlier run.
    const creating = stdout.slice(stdout.indexOf('== Creating the deployments'));
    expect(/support-bot: [^\n]*/.exec(creating)?.[0]).not.toContain('Ready=True');
    expect(await demoObjectsLeft()).toEqual([]);
  }, 90_000);
});

describe('demo --context', () => {
  it("uses the context named, not the kubeconfig's current one (which points nowhere)", async () => {
    const written = yaml.load(await readFile(kubeconfig, 'utf8')) as {
      clusters: Array<{ name: string; cluster: Record<string, unknown> }>;
      contexts: Array<{ name: string; context: Record<string, string> }>;
    };
    const nowhere = { name: 'nowhere', cluster: { server: 'http://127.0.0.1:1' } };
    const twoContexts = join(dir, 'two-contexts');
    await writeFile(
      twoContexts,
      yaml.dump({
        ...written,
        clusters: [...written.clusters, nowhere],
        contexts: [
          ...written.contexts.map((entry) => ({ ...entry, name: 'emulator' })),
          { name: 'nowhere', context: { cluster: 'nowhere', user: written.contexts[0]?.context.user ?? '' } },
        ],
        'current-context': 'nowhere',
      }),
    );
    const { code, stdout } = await startDemo(['--kubeconfig', twoContexts, '--context', 'emulator']).done;
    expect(code, stdout).toBe(0);
    expect(stdout).toContain(`kubernetes: ${twoContexts}`);
    expect(await demoObjectsLeft()).toEqual([]);
  }, 60_000);
});

describe('demo interrupted', () => {
  it('Ctrl-C during the rollout still removes everything it created', async () => {
    const demo = startDemo(['--revision-phase-ms', '5000']);
    await waitForOutput(demo, '== Creating the deployments');
    demo.child.kill('SIGINT');
    const { code, stdout } = await demo.done;
    expect(code).toBe(1);
    expect(stdout).toContain('demo failed: interrupted');
    expect(stdout).toContain('removed namespace agents-demo');
    expect(await demoObjectsLeft()).toEqual([]);
  }, 60_000);
});

describe('demo start-up errors', () => {
  it('exits non-zero at once when the kubeconfig cannot be read', async () => {
    const { code, stdout } = await startDemo(['--kubeconfig', join(dir, 'missing')]).done;
    expect(code).toBe(1);
    expect(stdout).toMatch(/demo failed: --kubeconfig: cannot load ".*missing"/);
  }, 30_000);

  it('exits non-zero at once when the cluster does not answer', async () => {
    const unreachable = join(dir, 'unreachable-kubeconfig');
    await writeFile(
      unreachable,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]',
        'users: [{name: u, user: {token: x}}]',
        'contexts: [{name: c, context: {cluster: c, user: u}}]',
        'current-context: c',
        '',
      ].join('\n'),
    );
    const { code, stdout } = await startDemo(['--kubeconfig', unreachable]).done;
    expect(code).toBe(1);
    expect(stdout).toMatch(/demo failed: GET \/api\/v1\/namespaces\/agents-demo: connect ECONNREFUSED/);
    expect(stdout).not.toContain('Cleaning up');
  }, 30_000);
});
