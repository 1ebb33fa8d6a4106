// A small world for `invoke`: the control-plane emulator with a deployed agent, a Kubernetes
// emulator with the CRDs, a kubeconfig, and a host that records every request it gets (a
// host a tenant chose). Objects and connections are written straight to the API server, as
// the operator (status) and a tenant (spec, and status where it has the right) would.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { GROUP, PLURAL, VERSION } from '../../src/api/agentdeployment/names.js';
import { run, type InvokeIo } from '../../src/invoke/cli.js';
import { kubeClientFrom, loadClusterAccess } from '../../src/runtime/kube/cluster-access.js';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import type { ResourceType } from '../../src/runtime/kube/resource.js';
import { startKubeEmulator, type KubeEmulator } from '../../src/sim/kube/index.js';
import { KEY, agentUrlOf, startRuntimeFixture } from '../runtime-emulator/helpers.js';

export const IMAGE = 'registry.example/invoked:4.2';
export const AGENTS: ResourceType = { group: GROUP, version: VERSION, plural: PLURAL };
export const PLATFORM_CONNECTIONS: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: 'platformconnections',
};
export const CLUSTER_CONNECTIONS: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: 'clusterplatformconnections',
  namespaced: false,
};
const SECRETS: ResourceType = { group: '', version: 'v1', plural: 'secrets' };
const NAMESPACES: ResourceType = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };
const CRDS: ResourceType = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  namespaced: false,
};
const CRD_FILES = [
  'agentplatform.io_agentdeployments.yaml',
  'agentplatform.io_platformconnections.yaml',
  'agentplatform.io_clusterplatformconnections.yaml',
];

export interface CapturedRequest {
  url: string;
  headers: Record<string, unknown>;
}

export interface InvokeWorld {
  dir: string;
  kubeconfig: string;
  kube: KubeClient;
  /** The control-plane emulator's origin: the deployed agent's address is on it. */
  controlPlaneUrl: string;
  /** The deployed agent's address (its custom_url). */
  agentUrl: string;
  deploymentId: string;
  listenerId: string;
  /** A host of a tenant's choosing; `captured` holds what reached it. */
  captureUrl: string;
  captured: CapturedRequest[];
  close(): Promise<void>;
}

export async function startInvokeWorld(): Promise<InvokeWorld> {
  const fixture = await startRuntimeFixture();
  const deployment = await fixture.deploy(IMAGE);
  const { listenerId } = await fixture.emulator.defaults();
  const agentUrl = agentUrlOf(deployment);
  const captured: CapturedRequest[] = [];
  const capture: Server = createServer((request, response) => {
    captured.push({ url: request.url ?? '', headers: { ...request.headers } });
    request.resume();
    response.writeHead(500, { 'content-type': 'application/json' }).end('{"detail":"captured"}');
  });
  await new Promise<void>((resolve) => capture.listen(0, '127.0.0.1', resolve));
  const dir = await mkdtemp(join(tmpdir(), 'invoke-world-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const emulator: KubeEmulator = await startKubeEmulator({ kubeconfigPath: kubeconfig });
  const { client, transport } = kubeClientFrom(await loadClusterAccess({ kind: 'file', path: kubeconfig }));
  for (const file of CRD_FILES) {
    const crd = yaml.load(
      await readFile(new URL(`../../crds/${file}`, import.meta.url), 'utf8'),
    ) as KubeObject;
    await client.create(CRDS, crd);
  }
  return {
    dir,
    kubeconfig,
    kube: client,
    controlPlaneUrl: new URL(agentUrl).origin,
    agentUrl,
    deploymentId: deployment.id,
    listenerId,
    captureUrl: `http://127.0.0.1:${(capture.address() as AddressInfo).port}`,
    captured,
    async close() {
      transport.close();
      await new Promise((resolve) => capture.close(resolve));
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function createNamespace(
  kube: KubeClient,
  name: string,
  labels: Record<string, string> = {},
): Promise<void> {
  await kube.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
}

/** An AgentDeployment whose status carries `url` (what the operator, or a forger, recorded). */
export async function createAgent(
  world: InvokeWorld,
  namespace: string,
  name: string,
  options: { url?: string; deploymentId?: string; connectionRef?: { kind: string; name: string } } = {},
): Promise<void> {
  await world.kube.create(AGENTS, {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'AgentDeployment',
    metadata: { name, namespace },
    spec: {
      ...(options.connectionRef === undefined ? {} : { connectionRef: options.connectionRef }),
      source: 'external_container',
      sourceConfig: { listenerId: world.listenerId },
      sourceRevisionConfig: { imageUri: IMAGE },
    },
  });
  await world.kube.mergePatchStatus(AGENTS, namespace, name, {
    status: {
      customUrl: options.url ?? world.agentUrl,
      ...(options.deploymentId === undefined ? {} : { deploymentId: options.deploymentId }),
    },
  });
}

export interface ConnectionOptions {
  kind?: 'PlatformConnection' | 'ClusterPlatformConnection';
  /** A PlatformConnection's namespace, or where a ClusterPlatformConnection's key Secret lives. */
  namespace: string;
  name: string;
  /** The connection's self-hosted control plane and platform API. */
  url: string;
  /** The key Secret's value; undefined: no Secret is written. */
  key?: string;
  agentHosts?: string[];
  namespaceSelector?: Record<string, unknown>;
  /** Whether the operator has probed it Ready (default true). */
  ready?: boolean;
}

/** A connection with its key Secret, and a status as the operator writes it after a probe. */
export async function createConnection(world: InvokeWorld, options: ConnectionOptions): Promise<void> {
  const cluster = options.kind === 'ClusterPlatformConnection';
  const secretName = `${options.name}-key`;
  if (options.key !== undefined) {
    await world.kube.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: secretName, namespace: options.namespace },
      stringData: { apiKey: options.key },
    } as KubeObject);
  }
  const type = cluster ? CLUSTER_CONNECTIONS : PLATFORM_CONNECTIONS;
  const created = await world.kube.create<KubeObject & { metadata: { generation?: number } }>(type, {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: options.kind ?? 'PlatformConnection',
    metadata: { name: options.name, ...(cluster ? {} : { namespace: options.namespace }) },
    spec: {
      controlPlaneUrl: options.url,
      platformApiUrl: options.url,
      apiKeySecretRef: { name: secretName, key: 'apiKey' },
      ...(options.agentHosts === undefined ? {} : { agentHosts: options.agentHosts }),
      ...(options.namespaceSelector === undefined ? {} : { namespaceSelector: options.namespaceSelector }),
    },
  });
  const ready = options.ready ?? true;
  await world.kube.mergePatchStatus(type, cluster ? undefined : options.namespace, options.name, {
    status: {
      observedGeneration: created.metadata.generation,
      conditions: [
        {
          type: 'Ready',
          status: ready ? 'True' : 'False',
          reason: ready ? 'Authenticated' : 'Unauthorized',
          message: ready ? 'the key authenticates' : 'the control plane refuses the key',
          lastTransitionTime: new Date().toISOString(),
          observedGeneration: created.metadata.generation,
        },
      ],
    },
  });
}

export interface InvokeResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `agent-operator invoke` in this process, with its output captured and the given environment. */
export async function invoke(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<InvokeResult> {
  let stdout = '';
  let stderr = '';
  const io: InvokeIo = { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env };
  const code = await run(argv, io);
  return { code, stdout, stderr };
}

export { KEY };
