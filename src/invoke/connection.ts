// The key `invoke` sends for an AgentDeployment that names a connection (spec.connectionRef):
// that connection's, resolved the way the operator resolves it (src/connections/registry.ts:
// the connection exists, serves the object's namespace, is Ready, has a readable key), but
// read with the user's kubeconfig and permissions. The key then goes only where that
// connection's own trust allows (its control plane and platform API, a URL the platform
// assigned, its spec.agentHosts): the user's --agent-hosts and --trust-agent-url widen where
// the user's own key goes, never a connection's.
import {
  CLUSTER_PLATFORM_CONNECTION,
  PLATFORM_CONNECTION,
  PlatformConnectionObject,
} from '../api/connection/index.js';
import { GROUP, VERSION } from '../api/agentdeployment/names.js';
import { connectionRefOf } from '../connections/agentdeployment-connection.js';
import { ControlPlaneClientPool } from '../connections/client-pool.js';
import { connectionEndpoints } from '../connections/endpoints.js';
import { describeConnection, type ConnectionRef } from '../connections/reference.js';
import {
  ConnectionRegistry,
  type ConnectionRegistryOptions,
  type ResolvedConnection,
} from '../connections/registry.js';
import { ControlPlaneClient, REGION_BASE_URLS, type Credentials } from '../controlplane/client/index.js';
import type { SecretSource } from '../reconcilers/agentdeployment/secrets.js';
import type { KubeClient } from '../runtime/kube/client.js';
import { KubeApiError } from '../runtime/kube/errors.js';
import type { KubeObject } from '../runtime/kube/objects.js';
import { TargetError } from './target.js';

/** A named connection resolved for invoke; close() releases its control-plane clients. */
export interface InvokeConnection {
  resolved: ResolvedConnection;
  /**
   * The connection's control plane, with its key, for one question (is the agent's URL the one
   * it assigned?): one attempt, no retries, so that an unreachable one fails the call at once.
   */
  controlPlane: ControlPlaneClient;
  close(): Promise<void>;
}

/** How long the connection's control plane gets to answer whether it assigned the agent's URL. */
const QUESTION_DEADLINE_MS = 10_000;

/** The key an agent call carries: the API key, or a connection's bearer token sent the same way. */
export function agentKeyOf(credentials: Credentials): string {
  return 'apiKey' in credentials ? credentials.apiKey : credentials.bearerToken;
}

/** undefined when the object names no connection (the user's own key is then used). */
export async function resolveInvokeConnection(
  kube: KubeClient,
  object: KubeObject,
  operatorNamespace: string,
  signal: AbortSignal,
): Promise<InvokeConnection | undefined> {
  const ref = connectionRefOf({ metadata: object.metadata, spec: object.spec as object | undefined });
  if (ref === undefined) return undefined;
  const namespace = object.metadata.namespace ?? 'default';
  const objectLabel = `agentdeployment ${namespace}/${object.metadata.name ?? ''}`;
  const cluster = ref.kind === 'ClusterPlatformConnection';
  const connectionNamespace = cluster ? undefined : namespace;
  const label = describeConnection(ref.kind, connectionNamespace, ref.name);
  const fail = (problem: string): TargetError => new TargetError(`${objectLabel} uses ${label}: ${problem}`);

  const connection = await readConnection(kube, ref, connectionNamespace, signal, fail);
  const namespaceLabels = cluster ? await readNamespaceLabels(kube, namespace, signal, fail) : undefined;
  const secretNamespace = cluster ? operatorNamespace : namespace;
  const secret = await readKeySecret(kube, connection, secretNamespace, signal, fail);
  const secretName = (connection?.spec.apiKeySecretRef ?? connection?.spec.bearerTokenSecretRef)?.name;

  const pool = new ControlPlaneClientPool();
  const unused = unusedDefaultConnection();
  const close = async (): Promise<void> => {
    await pool.close();
    await unused.client.close();
  };
  const registry = new ConnectionRegistry({
    lookup: {
      connection: (kind, ns, name) =>
        connection !== undefined &&
        kind === connection.kind &&
        name === connection.metadata.name &&
        ns === connection.metadata.namespace
          ? connection
          : undefined,
      namespaceLabels: (ns) => (ns === namespace ? namespaceLabels : undefined),
      secret: (ns, name) => (ns === secretNamespace && name === secretName ? secret : undefined),
    },
    pool,
    operatorNamespace,
    defaultConnection: unused.connection,
    defaultDataDeletionNamespaces: [],
  });
  const resolution = registry.resolve(ref, namespace);
  if (!resolution.ok) {
    await close();
    throw new TargetError(
      `${objectLabel} uses ${label}, which invoke may not use (${resolution.reason}): ${resolution.message}`,
    );
  }
  const endpoints = connectionEndpoints(connection?.spec ?? {});
  const controlPlane = new ControlPlaneClient({
    baseUrl: endpoints.controlPlaneUrl,
    region: endpoints.region,
    credentials: resolution.credentials,
    retry: { maxAttempts: 1 },
    deadlineMs: QUESTION_DEADLINE_MS,
  });
  return {
    resolved: resolution,
    controlPlane,
    close: async () => {
      await controlPlane.close();
      await close();
    },
  };
}

async function readConnection(
  kube: KubeClient,
  ref: ConnectionRef,
  namespace: string | undefined,
  signal: AbortSignal,
  fail: (problem: string) => TargetError,
): Promise<PlatformConnectionObject | undefined> {
  const names = ref.kind === 'ClusterPlatformConnection' ? CLUSTER_PLATFORM_CONNECTION : PLATFORM_CONNECTION;
  let raw: KubeObject;
  try {
    raw = await kube.get(
      { group: GROUP, version: VERSION, plural: names.plural, namespaced: namespace !== undefined },
      namespace,
      ref.name,
      signal,
    );
  } catch (error) {
    // Not found: the registry's refusal says so, with its rule (a PlatformConnection serves only its namespace).
    if (error instanceof KubeApiError && error.statusCode === 404) return undefined;
    throw fail(`cannot read it with your kubeconfig (${kubeProblem(error)})`);
  }
  const parsed = PlatformConnectionObject.safeParse(raw);
  if (!parsed.success) throw fail('it is not a well-formed connection object');
  return parsed.data;
}

async function readNamespaceLabels(
  kube: KubeClient,
  namespace: string,
  signal: AbortSignal,
  fail: (problem: string) => TargetError,
): Promise<Readonly<Record<string, string>>> {
  try {
    const object = await kube.get<KubeObject>(
      { group: '', version: 'v1', plural: 'namespaces', namespaced: false },
      undefined,
      namespace,
      signal,
    );
    return object.metadata.labels ?? {};
  } catch (error) {
    throw fail(
      `cannot read namespace ${namespace} with your kubeconfig (${kubeProblem(error)}); its labels decide whether the connection's namespaceSelector serves it`,
    );
  }
}

/** The connection's key Secret as the user may read it; undefined when it does not exist (the registry says so). */
async function readKeySecret(
  kube: KubeClient,
  connection: PlatformConnectionObject | undefined,
  namespace: string,
  signal: AbortSignal,
  fail: (problem: string) => TargetError,
): Promise<SecretSource | undefined> {
  const ref = connection?.spec.apiKeySecretRef ?? connection?.spec.bearerTokenSecretRef;
  if (ref === undefined) return undefined;
  try {
    return await kube.get<KubeObject & SecretSource>(
      { group: '', version: 'v1', plural: 'secrets' },
      namespace,
      ref.name,
      signal,
    );
  } catch (error) {
    if (error instanceof KubeApiError && error.statusCode === 404) return undefined;
    throw fail(
      `cannot read its key Secret "${namespace}/${ref.name}" with your kubeconfig (${kubeProblem(error)}); invoke sends a connection's key only after reading it with your own permissions`,
    );
  }
}

function kubeProblem(error: unknown): string {
  if (error instanceof KubeApiError) {
    if (error.statusCode === 403) return 'forbidden';
    return `${error.statusCode} ${error.reason}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * The registry's default connection is for objects without spec.connectionRef, which invoke
 * never resolves through it (they use the user's own key, ./trust.ts). The registry still
 * wants one: this one holds nobody's credential, and its client is never called.
 */
function unusedDefaultConnection(): {
  connection: ConnectionRegistryOptions['defaultConnection'];
  client: ControlPlaneClient;
} {
  const credentials = { apiKey: 'invoke-resolves-named-connections-only' };
  const client = new ControlPlaneClient({
    baseUrl: REGION_BASE_URLS.us,
    region: 'us',
    credentials,
    retry: { maxAttempts: 1 },
  });
  return {
    client,
    connection: {
      client,
      budgetId: 'unused',
      controlPlaneId: 'unused',
      credentials,
      agentTrust: { platformUrls: [], agentHosts: [], tenantChosenEndpoints: false },
    },
  };
}
