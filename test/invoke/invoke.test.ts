// `agent-operator invoke` end to end: the Kubernetes emulator holds an AgentDeployment whose
// status carries its agent's address, the control-plane emulator serves that agent, and the
// command finds the object through a kubeconfig, calls the agent with the operator's key,
// and prints the reply, or one clear line and a non-zero exit.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, PLURAL, VERSION } from '../../src/api/agentdeployment/names.js';
import { run, type InvokeIo } from '../../src/invoke/cli.js';
import { agentUrlOf } from '../../src/invoke/target.js';
import { kubeClientFrom, loadClusterAccess } from '../../src/runtime/kube/cluster-access.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import { startKubeEmulator, type KubeEmulator } from '../../src/sim/kube/index.js';
import { KEY, agentUrlOf as deploymentUrl, startRuntimeFixture } from '../runtime-emulator/helpers.js';

const NAMESPACE = 'agents';
const IMAGE = 'registry.example/invoked:4.2';
const AGENTS = { group: GROUP, version: VERSION, plural: PLURAL };
const CRD_FILE = new URL('../../crds/agentplatform.io_agentdeployments.yaml', import.meta.url);

let dir: string;
let kube: KubeEmulator;
let kubeconfig: string;
/** The control plane the user names, as the operator takes it: its agents' addresses are its own. */
let controlPlaneUrl: string;
/** Stands in for a host a tenant chose: it records every request it gets. */
let capture: Server;
let captured: Array<{ url: string; headers: Record<string, unknown> }>;

async function invoke(
  argv: string[],
  env: NodeJS.ProcessEnv = { AGENT_OPERATOR_API_KEY: KEY, AGENT_OPERATOR_CONTROL_PLANE_URL: controlPlaneUrl },
) {
  let stdout = '';
  let stderr = '';
  const io: InvokeIo = { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env };
  const code = await run(['--kubeconfig', kubeconfig, '-n', NAMESPACE, ...argv], io);
  return { code, stdout, stderr };
}

function agentDeployment(name: string, listenerId: string): KubeObject {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'AgentDeployment',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      source: 'external_container',
      sourceConfig: { listenerId },
      sourceRevisionConfig: { imageUri: IMAGE },
    },
  };
}

beforeAll(async () => {
  const fixture = await startRuntimeFixture();
  const deployment = await fixture.deploy(IMAGE);
  const { listenerId } = await fixture.emulator.defaults();
  controlPlaneUrl = new URL(deploymentUrl(deployment)).origin;
  captured = [];
  capture = createServer((request, response) => {
    captured.push({ url: request.url ?? '', headers: { ...request.headers } });
    request.resume();
    response.writeHead(500, { 'content-type': 'application/json' }).end('{"detail":"captured"}');
  });
  await new Promise<void>((resolve) => capture.listen(0, '127.0.0.1', resolve));
  dir = await mkdtemp(join(tmpdir(), 'invoke-test-'));
  kubeconfig = join(dir, 'kubeconfig');
  kube = await startKubeEmulator({ kubeconfigPath: kubeconfig });
  const { client, transport } = kubeClientFrom(await loadClusterAccess({ kind: 'file', path: kubeconfig }));
  try {
    const crd = yaml.load(await readFile(CRD_FILE, 'utf8')) as KubeObject;
    await client.create(
      {
        group: 'apiextensions.k8s.io',
        version: 'v1',
        plural: 'customresourcedefinitions',
        namespaced: false,
      },
      crd,
    );
    await client.create(
      { group: '', version: 'v1', plural: 'namespaces', namespaced: false },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } },
    );
    await client.create(AGENTS, agentDeployment('bot', listenerId));
    // What the operator records once the deployment exists (the smoke test adds status.url).
    await client.mergePatchStatus(AGENTS, NAMESPACE, 'bot', {
      status: { customUrl: deploymentUrl(deployment) },
    });
    await client.create(AGENTS, agentDeployment('fresh', listenerId));
    // A tenant wrote an address of its choosing (a customUrl, or a forged status).
    await client.create(AGENTS, agentDeployment('elsewhere', listenerId));
    await client.mergePatchStatus(AGENTS, NAMESPACE, 'elsewhere', {
      status: { customUrl: `${captureUrl()}/agents/x`, deploymentId: deployment.id },
    });
  } finally {
    transport.close();
  }
});

function captureUrl(): string {
  return `http://127.0.0.1:${(capture.address() as AddressInfo).port}`;
}

afterAll(async () => {
  await new Promise((resolve) => capture.close(resolve));
  await kube.close();
  await rm(dir, { recursive: true, force: true });
});

describe('agent-operator invoke', () => {
  it('prints the reply of the agent named in the object status', async () => {
    const result = await invoke(['bot', 'hello there']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(
      /^You said: hello there\. Answered by revision .* \(image registry\.example\/invoked:4\.2\)/,
    );
    expect(result.stdout.endsWith('\n')).toBe(true);
  });

  it('--stream prints the update as it arrives', async () => {
    const result = await invoke(['bot', '--stream', 'streamed hello']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').filter(Boolean)).toEqual([
      expect.stringContaining('You said: streamed hello.'),
    ]);
  });

  it('--thread new prints the thread id; --thread <id> continues the conversation', async () => {
    const first = await invoke(['bot', '--thread', 'new', 'my name is Ada']);
    expect(first.code).toBe(0);
    const threadId = /^thread: ([0-9a-f-]{36}) /.exec(first.stderr)?.[1];
    expect(threadId).toBeDefined();
    const second = await invoke(['bot', '--thread', threadId ?? '', 'what is my name?']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('message 2 of this conversation');
  });

  it('reads the key from --api-key-file as the operator does', async () => {
    const keyFile = join(dir, 'api-key');
    await writeFile(keyFile, `${KEY}\n`);
    const result = await invoke(['bot', '--api-key-file', keyFile, 'from a file'], {
      AGENT_OPERATOR_CONTROL_PLANE_URL: controlPlaneUrl,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('from a file');
  });

  it.each([
    {
      name: 'an object that does not exist',
      argv: ['nope', 'hi'],
      says: 'agentdeployment "nope" not found in namespace "agents"',
    },
    { name: 'an object without an agent URL yet', argv: ['fresh', 'hi'], says: 'has no agent URL yet' },
    {
      name: 'a graph error',
      argv: ['bot', 'raise:out of tokens'],
      says: 'the agent failed: Error: out of tokens',
    },
  ])('fails with one line and exit 1 for $name', async ({ argv, says }) => {
    const result = await invoke(argv);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(result.stderr).toContain(says);
  });

  it('says the key was refused, without printing it', async () => {
    const wrongKey = 'sk-wrong-0123456789';
    const result = await invoke(['bot', 'hi'], {
      AGENT_OPERATOR_API_KEY: wrongKey,
      AGENT_OPERATOR_CONTROL_PLANE_URL: controlPlaneUrl,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the agent refused the API key');
    expect(result.stderr).not.toContain(wrongKey);
  });

  it.each([
    { name: 'no message', argv: ['bot'], says: 'give the AgentDeployment name and the message' },
    {
      name: 'a bad --thread',
      argv: ['bot', '--thread', 'latest', 'hi'],
      says: '--thread must be a thread id',
    },
    { name: 'a bad --timeout', argv: ['bot', '--timeout', '0', 'hi'], says: '--timeout must be' },
  ])('exits 2 for $name', async ({ argv, says }) => {
    const result = await invoke(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(says);
  });

  it('exits 2 naming the key sources when no key is given', async () => {
    const result = await invoke(['bot', 'hi'], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('AGENT_OPERATOR_API_KEY');
  });

  it("does not send the key to an address the object's author chose, unless told; the capture host sees nothing", async () => {
    const refused = await invoke(['elsewhere', 'hi']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`not sending your key to ${captureUrl()}/agents/x`);
    expect(refused.stderr).toContain('--agent-hosts');
    // Another control plane than the one the agent's URL is on: the same refusal.
    const elsewhere = await invoke(['bot', 'hi'], {
      AGENT_OPERATOR_API_KEY: KEY,
      AGENT_OPERATOR_CONTROL_PLANE_URL: 'https://control-plane.example.com',
    });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('not sending your key');
    expect(captured).toEqual([]);

    const port = new URL(captureUrl()).port;
    const allowed = await invoke(['elsewhere', '--agent-hosts', `127.0.0.1:${port}`, 'hi']);
    expect(allowed.code).toBe(1);
    expect(captured.map((request) => request.headers['x-api-key'])).toContain(KEY);
    const before = captured.length;
    await invoke(['elsewhere', '--trust-agent-url', 'hi']);
    expect(captured.length).toBeGreaterThan(before);
  });

  it('prefers status.url and falls back to status.customUrl', () => {
    const status = (s: Record<string, string>): KubeObject =>
      ({ metadata: { name: 'x' }, status: s }) as KubeObject;
    expect(agentUrlOf(status({ url: 'http://a', customUrl: 'http://b' }))).toBe('http://a');
    expect(agentUrlOf(status({ customUrl: 'http://b' }))).toBe('http://b');
    expect(agentUrlOf(status({}))).toBeUndefined();
  });

  it('works as a command: KUBECONFIG from the environment, reply on stdout, exit 0', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'invoke', '-n', NAMESPACE, 'bot', 'hello from a shell'],
      {
        cwd: new URL('../..', import.meta.url).pathname,
        env: {
          ...process.env,
          KUBECONFIG: kubeconfig,
          AGENT_OPERATOR_API_KEY: KEY,
          AGENT_OPERATOR_CONTROL_PLANE_URL: controlPlaneUrl,
        },
      },
    );
    expect(stdout).toContain('You said: hello from a shell.');
  });
});
