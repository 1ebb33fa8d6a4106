// The demo's second connection (embedded control plane only): an EU control plane beside the
// default US one, each with its own key, rate budget and state, as a team in the EU region
// would set it up. It applies the EU key's Secret and a PlatformConnection, waits until the
// operator has probed it Ready, and returns an AgentDeployment that deploys through it. That
// agent names its listener (listenerRef) instead of the EU listener's id, which differs from
// the US one: the manifest is the same in both regions but for its connectionRef.
import type { KubeClient } from '../runtime/kube/client.js';
import type { KubeObject } from '../runtime/kube/objects.js';
import { labelled } from './footprint.js';
import { applyObject, resourceTypeOf, type Manifest } from './manifests.js';
import { pollUntil } from './poll-until.js';

export const SECOND_CONNECTION_NAME = 'eu';
const POLL_MS = 150;

export interface SecondConnectionOptions {
  client: KubeClient;
  namespace: string;
  /** The EU emulator's address: it serves the control plane and the platform API (/ok). */
  url: string;
  apiKey: string;
  deadline: number;
  line(text: string): void;
}

/** The EU connection's Secret and PlatformConnection, and the agent that deploys through it. */
export function secondConnectionManifests(
  options: Pick<SecondConnectionOptions, 'namespace' | 'url' | 'apiKey'>,
): {
  connection: Manifest[];
  agent: Manifest;
} {
  const { namespace, url, apiKey } = options;
  const secret: Manifest = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'eu-workspace-key', namespace },
    type: 'Opaque',
    stringData: { apiKey },
  } as Manifest;
  const connection: Manifest = {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'PlatformConnection',
    metadata: { name: SECOND_CONNECTION_NAME, namespace },
    spec: {
      // A self-hosted shape: the embedded EU emulator answers on a loopback address. Against
      // the real service this would be `region: eu`.
      controlPlaneUrl: url,
      platformApiUrl: url,
      apiKeySecretRef: { name: 'eu-workspace-key', key: 'apiKey' },
    },
  };
  const agent: Manifest = {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name: 'support-bot-eu', namespace },
    spec: {
      connectionRef: { kind: 'PlatformConnection', name: SECOND_CONNECTION_NAME },
      source: 'external_container',
      sourceConfig: {
        listenerRef: { name: 'emulator-cluster' },
        listenerConfig: { clusterNamespace: 'agents' },
        resourceSpec: { minScale: 1, maxScale: 2, cpu: 0.5, memoryMb: 512 },
      },
      sourceRevisionConfig: { imageUri: 'registry.example.com/support-bot:1.0.0' },
    },
  };
  return { connection: [secret, connection], agent };
}

/**
 * Applies the EU connection's Secret and PlatformConnection. Also done before an earlier run's
 * leftovers are cleared: its EU emulator died with it, and its agent's deletion must reach
 * this run's EU emulator (which answers 404, so the deletion completes) instead of waiting on
 * an address that no longer answers.
 */
export async function applySecondConnection(
  options: Pick<SecondConnectionOptions, 'client' | 'namespace' | 'url' | 'apiKey'>,
): Promise<void> {
  for (const object of secondConnectionManifests(options).connection)
    await applyObject(options.client, labelled(object), object);
}

/** Applies the EU connection and waits for it to be Ready; returns the agent to apply with the others. */
export async function setUpSecondConnection(options: SecondConnectionOptions): Promise<Manifest> {
  const { connection, agent } = secondConnectionManifests(options);
  await applySecondConnection(options);
  const [, platformConnection] = connection;
  if (platformConnection === undefined) throw new Error('no PlatformConnection to wait for');
  await waitReady(options, platformConnection);
  options.line(
    `connections: default (us, the operator's own flags) and PlatformConnection ${options.namespace}/${SECOND_CONNECTION_NAME} (the EU emulator at ${options.url}): Ready`,
  );
  return agent;
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
type Conditioned = KubeObject & { status?: { conditions?: Condition[] } };

async function waitReady(options: SecondConnectionOptions, object: Manifest): Promise<void> {
  const type = resourceTypeOf(object);
  let ready: Condition | undefined;
  const what = () =>
    `PlatformConnection ${object.metadata.name} to be Ready` +
    (ready ? ` (${ready.reason ?? ''}: ${ready.message ?? ''})` : '');
  await pollUntil(options.deadline, what, POLL_MS, async () => {
    const current = await options.client.get<Conditioned>(
      type,
      object.metadata.namespace,
      object.metadata.name,
    );
    ready = current.status?.conditions?.find((condition) => condition.type === 'Ready');
    return ready?.status === 'True';
  });
}
