// `agent-operator invoke --header-from-secret` end to end: an agent with custom authentication
// (the runtime emulator's /_emulator/agent-access) answers only with its header, whose value
// invoke reads from a Secret of the object's namespace with the user's kubeconfig. The value
// never appears in what invoke prints.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, PLURAL, VERSION } from '../../src/api/agentdeployment/names.js';
import { run, type InvokeIo } from '../../src/invoke/cli.js';
import { kubeClientFrom, loadClusterAccess } from '../../src/runtime/kube/cluster-access.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import { startKubeEmulator, type KubeEmulator } from '../../src/sim/kube/index.js';
import { KEY, agentUrlOf, startRuntimeFixture, type RuntimeFixture } from '../runtime-emulator/helpers.js';

const NAMESPACE = 'agents';
const OTHER_NAMESPACE = 'billing';
const TOKEN = 'user-token-9d1e4b7a2c';
const AGENTS = { group: GROUP, version: VERSION, plural: PLURAL };
const SECRETS = { group: '', version: 'v1', plural: 'secrets' };
const NAMESPACES = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };
const CRD_FILE = new URL('../../crds/agentplatform.io_agentdeployments.yaml', import.meta.url);

let dir: string;
let kube: KubeEmulator;
let kubeconfig: string;
let fixture: RuntimeFixture;

async function invoke(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const env = { AGENT_OPERATOR_API_KEY: KEY, AGENT_OPERATOR_CONTROL_PLANE_URL: controlPlaneUrl };
  const io: InvokeIo = { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env };
  const code = await run(['--kubeconfig', kubeconfig, '-n', NAMESPACE, ...argv], io);
  return { code, stdout, stderr };
}
let controlPlaneUrl: string;

const secret = (namespace: string, name: string, value: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace },
  data: { token: Buffer.from(value).toString('base64') },
});

beforeAll(async () => {
  fixture = await startRuntimeFixture();
  const deployment = await fixture.deploy();
  const { listenerId } = await fixture.emulator.defaults();
  controlPlaneUrl = new URL(agentUrlOf(deployment)).origin;
  await fixture.emulator.call('PUT', `/_emulator/agent-access/${deployment.id}`, {
    body: { custom_auth: { headers: { 'x-user-token': TOKEN } } },
  });
  dir = await mkdtemp(join(tmpdir(), 'invoke-headers-test-'));
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
    for (const name of [NAMESPACE, OTHER_NAMESPACE]) {
      await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    await client.create(AGENTS, {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'AgentDeployment',
      metadata: { name: 'custom', namespace: NAMESPACE },
      spec: {
        source: 'external_container',
        sourceConfig: { listenerId },
        sourceRevisionConfig: { imageUri: 'registry.example/agent:1' },
      },
    });
    await client.mergePatchStatus(AGENTS, NAMESPACE, 'custom', {
      status: { customUrl: agentUrlOf(deployment) },
    });
    await client.create(SECRETS, secret(NAMESPACE, 'agent-auth', TOKEN));
    await client.create(SECRETS, secret(NAMESPACE, 'wrong-auth', 'not-the-token'));
    await client.create(SECRETS, secret(OTHER_NAMESPACE, 'agent-auth', TOKEN));
  } finally {
    transport.close();
  }
});

afterAll(async () => {
  await kube.close();
  await rm(dir, { recursive: true, force: true });
});

describe('agent-operator invoke --header-from-secret', () => {
  it('sends the header an agent with custom authentication expects, its value read from a Secret', async () => {
    const result = await invoke(['custom', 'hello', '--header-from-secret', 'x-user-token=agent-auth/token']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^You said: hello\./);
  });

  it('without it the agent answers 401, and a wrong value 403; no value is printed', async () => {
    const without = await invoke(['custom', 'hello']);
    expect(without.code).toBe(1);
    expect(without.stderr).toContain(
      'Missing custom authentication: this agent expects the x-user-token header',
    );
    const wrong = await invoke(['custom', 'hello', '--header-from-secret', 'x-user-token=wrong-auth/token']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('Custom authentication refused the x-user-token header');
    for (const output of [without, wrong])
      expect(`${output.stdout}${output.stderr}`).not.toMatch(/not-the-token|user-token-9d1e/);
  });

  it("refuses the operator's own and framing headers, and any other namespace, naming the flag and the rule", async () => {
    for (const name of ['x-api-key', 'Authorization', 'x-auth-scheme', 'x-tenant-id', 'host']) {
      const result = await invoke(['custom', 'hello', '--header-from-secret', `${name}=agent-auth/token`]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `--header-from-secret: "${name}" is the operator's own or an HTTP framing header`,
      );
    }
    // A Secret is named in the object's namespace only: "namespace/name/key" is not a form.
    const elsewhere = await invoke([
      'custom',
      'hello',
      '--header-from-secret',
      `x-user-token=${OTHER_NAMESPACE}/agent-auth/token`,
    ]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain('--header-from-secret must be NAME=SECRET/KEY');
    const missing = await invoke(['custom', 'hello', '--header-from-secret', 'x-user-token=absent/token']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      `--header-from-secret x-user-token: Secret "${NAMESPACE}/absent" cannot be read with your kubeconfig (not found)`,
    );
  });
});
