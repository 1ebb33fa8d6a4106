// Wires platform connections into the operator: caches of PlatformConnections,
// ClusterPlatformConnections and Namespaces, the registry that resolves an object's connection,
// and the connection controller beside the AgentDeployment one. The default connection (the
// flags and Helm values) keeps its client and budget; a connection with the same key and
// address shares that budget.
//
// A cluster without the connection CRDs (an upgrade that has not applied them yet), or an
// operator without the permission to list them cluster-wide, runs with what it can see: those
// caches stay empty (objects naming a connection are ConnectionNotFound) and are looked for
// again every 10 s, so a CRD applied later is served without a restart.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { GROUP, VERSION } from '../../api/agentdeployment/names.js';
import {
  CLUSTER_PLATFORM_CONNECTION,
  PLATFORM_CONNECTION,
  type ConnectionKind,
  type PlatformConnectionObject,
} from '../../api/connection/index.js';
import {
  connectionIndexValue,
  connectionIndexValues,
  connectionRefOf,
  type ConnectionUser,
} from '../../connections/agentdeployment-connection.js';
import { budgetIdOf, controlPlaneIdOf, ControlPlaneClientPool } from '../../connections/client-pool.js';
import { ConnectionRegistry, type ConnectionLookup, type NamespaceList } from '../../connections/registry.js';
import type { LoadConnectionKey } from '../../connections/key-before-pass.js';
import type { AddressPolicy } from '../../egress/address-policy.js';
import type { HostPattern } from '../../egress/host-patterns.js';
import type { RateBudget } from '../../controlplane/budget/rate-budget.js';
import type { ClientMetrics, ControlPlaneClient, Credentials } from '../../controlplane/client/index.js';
import { bindConnectionMetrics } from './metrics.js';
import { ConnectionReconciler } from './reconciler.js';
import type { ShardLease } from './shard-users.js';
import { KubeLeaseStore } from '../../runtime/leaderelection/lease-store.js';
import { sameJson } from '../../runtime/same-json.js';
import type { Outcome } from '../agentdeployment/ports.js';
import type { SecretSource } from '../agentdeployment/secrets.js';
import type { SecretValues } from '../../runtime/secrets/secret-values.js';
import { systemClock } from '../../runtime/clock.js';
import { Controller } from '../../runtime/controller/controller.js';
import type { EventRecorder } from '../../runtime/events/recorder.js';
import { CachedObjectPort } from '../../runtime/reconcile/object-port.js';
import { failed } from '../../runtime/reconcile/result.js';
import type { KubeClient } from '../../runtime/kube/client.js';
import { objectKey, type KubeObject } from '../../runtime/kube/objects.js';
import type { ResourceType } from '../../runtime/kube/resource.js';
import { Informer } from '../../runtime/manager/informer.js';
import { watchOf, type Manager, type Watch } from '../../runtime/manager/manager.js';
import { defaultControllerRateLimiter } from '../../runtime/workqueue/rate-limiter.js';

/** How long after a change of its users a connection is looked at (see the users' watch). */
const USER_COUNT_DELAY_MS = 1_000;

export const CONNECTION_CONTROLLER_NAME = 'platformconnection';
/** Index of AgentDeployments by the connection they name (see connectionIndexValue). */
export const BY_CONNECTION = 'byConnection';
const BY_KEY_SECRET = 'byKeySecret';

export const PLATFORM_CONNECTIONS: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: PLATFORM_CONNECTION.plural,
};
export const CLUSTER_PLATFORM_CONNECTIONS: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: CLUSTER_PLATFORM_CONNECTION.plural,
  namespaced: false,
};
const NAMESPACES: ResourceType = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };
const SECRETS: ResourceType = { group: '', version: 'v1', plural: 'secrets' };

type ConnectionObject = KubeObject & PlatformConnectionObject;
type SecretObject = KubeObject & SecretSource;

export interface ConnectionsOptions<U extends KubeObject & ConnectionUser> {
  kube: KubeClient;
  logger: Logger;
  registry: Registry;
  recorder: EventRecorder;
  /** Watched namespaces; empty: all. */
  namespaces: string[];
  /** Where ClusterPlatformConnection key Secrets live: the operator's own namespace. */
  operatorNamespace: string;
  concurrency: number;
  /** AgentDeployments, indexed BY_CONNECTION with connectionIndexValues. */
  agentDeployments: Informer<U>;
  secrets: Informer<SecretObject>;
  /**
   * The values of Secrets, read on demand by name: the Secret watch keeps only metadata, so a
   * connection's key Secret is read (GET) before the connection is reconciled.
   */
  secretValues: SecretValues;
  defaultConnection: {
    client: ControlPlaneClient;
    budget: RateBudget;
    credentials: Credentials;
    /** The default connection's platform API base URL (where its deletions and /ok go). */
    platformApiUrl: string;
    /** --agent-hosts. */
    agentHosts: readonly HostPattern[];
    /** --data-deletion-namespaces. */
    dataDeletionNamespaces: NamespaceList;
  };
  clientMetrics?: ClientMetrics;
  /** The address policy for connections whose endpoints a tenant chose (PlatformConnection). */
  addressPolicy?: AddressPolicy;
  /**
   * Asked right before each request of a connection's client: a replica that lost its lease
   * (even one just resumed from a freeze that has not heard so yet) sends nothing.
   */
  mayCall?: () => boolean;
  /**
   * The shard this process serves (--shard), and where each shard's Lease is: a sharded
   * process counts only its shard's users, in its own entry of status.shardUsers.
   */
  shard?: { name: string; leaseNamespace: string; leaseNameOf(shard: string): string };
}

export interface Connections {
  registry: ConnectionRegistry;
  /**
   * For the AgentDeployment controller: wakes the objects that name a connection when its
   * Ready status flips or it starts deleting, so that a refusal (ConnectionNotReady) heals.
   */
  userWatches: Array<Watch<KubeObject>>;
  /**
   * Reads the key Secret of the connection `user` names, as the connection controller does
   * before its own passes, so that the registry can resolve it. A user's pass calls this first:
   * a new process (a restart, a new leader) has read no key yet, and its first passes would
   * otherwise find a Ready connection's key "not found" and call the connection not Ready.
   * Undefined (no promise, no await) for a user of the default connection.
   */
  loadKeySecretOf: LoadConnectionKey;
  close(): Promise<void>;
}

/**
 * Adds the connection controller and its caches to `manager`, and returns the registry that
 * resolves an object's connection, for the controllers that use connections.
 */
export async function setUpConnections<U extends KubeObject & ConnectionUser>(
  manager: Manager,
  options: ConnectionsOptions<U>,
): Promise<Connections> {
  const { kube, logger } = options;
  const defaultClient = options.defaultConnection.client;
  const defaultUrl = `${defaultClient.endpoint.origin}${defaultClient.endpoint.pathPrefix}`;
  const pool = new ControlPlaneClientPool({
    logger,
    ...(options.clientMetrics === undefined ? {} : { metrics: options.clientMetrics }),
    ...(options.mayCall === undefined ? {} : { mayCall: options.mayCall }),
  });
  pool.adoptBudget(defaultClient.credentialFingerprint, defaultUrl, options.defaultConnection.budget);

  const scoped = options.namespaces.length > 0 ? options.namespaces : undefined;

  const keySecretIndex = (namespace: string) => (object: ConnectionObject) => {
    const ref = object.spec.apiKeySecretRef ?? object.spec.bearerTokenSecretRef;
    return ref === undefined ? [] : [`${namespace || object.metadata.namespace || ''}/${ref.name}`];
  };
  // The connection kinds may not be served yet (their CRDs installed later) or not
  // permitted: their caches then stay empty, hold nothing back, and look again.
  const namespacedConnections = Informer.forResource<ConnectionObject>(kube, {
    type: PLATFORM_CONNECTIONS,
    namespaces: options.namespaces,
    logger: logger.child({ informer: PLATFORM_CONNECTION.plural }),
    indexers: { [BY_KEY_SECRET]: keySecretIndex('') },
    mayBeAbsent: MAY_BE_ABSENT,
  });
  const clusterConnections = Informer.forResource<ConnectionObject>(kube, {
    type: CLUSTER_PLATFORM_CONNECTIONS,
    logger: logger.child({ informer: CLUSTER_PLATFORM_CONNECTION.plural }),
    indexers: { [BY_KEY_SECRET]: keySecretIndex(options.operatorNamespace) },
    mayBeAbsent: MAY_BE_ABSENT,
  });
  const namespaceCache = Informer.forResource<KubeObject>(kube, {
    type: NAMESPACES,
    logger: logger.child({ informer: 'namespaces' }),
    mayBeAbsent: MAY_BE_ABSENT,
  });
  // ClusterPlatformConnection keys live in the operator's namespace, which the watched
  // namespaces may not include: then its Secrets get their own (one-namespace) cache.
  const operatorSecrets =
    scoped !== undefined && !scoped.includes(options.operatorNamespace)
      ? Informer.forResource<SecretObject>(kube, {
          type: SECRETS,
          namespaces: [options.operatorNamespace],
          logger: logger.child({ informer: 'operator-secrets' }),
          mayBeAbsent: MAY_BE_ABSENT,
        })
      : undefined;

  const lookup: ConnectionLookup = {
    connection: (kind, namespace, name) =>
      kind === 'PlatformConnection'
        ? namespacedConnections.store.get(`${namespace ?? ''}/${name}`)
        : clusterConnections.store.get(name),
    namespaceLabels: (namespace) => {
      const object = namespaceCache.store.get(namespace);
      return object === undefined ? undefined : (object.metadata.labels ?? {});
    },
    secret: (namespace, name) =>
      (namespace === options.operatorNamespace
        ? operatorSecrets?.store.get(`${namespace}/${name}`)
        : undefined) ?? options.secretValues.get(namespace, name),
  };
  const defaultBudgetId = budgetIdOf(defaultClient.credentialFingerprint, defaultUrl);
  const registry = new ConnectionRegistry({
    lookup,
    pool,
    operatorNamespace: options.operatorNamespace,
    defaultConnection: {
      client: defaultClient,
      budgetId: defaultBudgetId,
      // The default connection authenticates with the --api-key flag's key.
      controlPlaneId: controlPlaneIdOf(
        defaultBudgetId,
        'key',
        options.defaultConnection.credentials.tenantId,
      ),
      credentials: options.defaultConnection.credentials,
      agentTrust: {
        platformUrls: [defaultUrl, options.defaultConnection.platformApiUrl],
        agentHosts: options.defaultConnection.agentHosts,
        tenantChosenEndpoints: false,
      },
    },
    defaultDataDeletionNamespaces: options.defaultConnection.dataDeletionNamespaces,
    ...(options.addressPolicy === undefined ? {} : { tenantAddressPolicy: options.addressPolicy }),
  });
  const informers = [namespaceCache, operatorSecrets].filter(
    (informer): informer is Informer<KubeObject> => informer !== undefined,
  );
  const close = () => pool.close();

  const storeOf = (kind: ConnectionKind) =>
    kind === 'PlatformConnection' ? namespacedConnections : clusterConnections;
  const port = new CachedObjectPort<ConnectionObject>({
    client: kube,
    type: typeOf,
    store: {
      get: (key) => {
        const [kind, namespace, name] = splitKey(key);
        return storeOf(kind)?.store.get(namespace === '' ? name : `${namespace}/${name}`);
      },
    },
    keyOf,
    recorder: options.recorder,
    logger,
  });
  const usersOf = (connection: ConnectionObject) =>
    options.agentDeployments.store
      .byIndex(BY_CONNECTION, keyOf(connection))
      .map((object) => objectKey(object));
  const { shard } = options;
  const reconciler = new ConnectionReconciler({
    kube: port,
    registry,
    usersOf,
    ...(shard === undefined
      ? {}
      : {
          shard: shard.name,
          shardLease: (name: string, signal: AbortSignal) =>
            readShardLease(kube, shard.leaseNamespace, shard.leaseNameOf(name), signal),
        }),
    clock: systemClock,
    metrics: bindConnectionMetrics(options.registry),
    logger: logger.child({ controller: CONNECTION_CONTROLLER_NAME }),
    ...(options.addressPolicy === undefined ? {} : { tenantAddressPolicy: options.addressPolicy }),
  });
  const controller = new Controller({
    name: CONNECTION_CONTROLLER_NAME,
    maxConcurrentReconciles: Math.min(options.concurrency, 4),
    registry: options.registry,
    logger,
    rateLimiter: () =>
      defaultControllerRateLimiter(systemClock, { baseDelayMs: 1_000, maxDelayMs: 5 * 60_000 }),
    // A throw is the controller's to catch: it counts and backs off as a failed pass.
    reconcile: async (key, signal) => {
      const loaded = await loadKeySecret(key, signal);
      if (!loaded.ok) return failed({ message: loaded.error.message });
      return reconciler.reconcile(key, signal);
    },
  });
  /** Reads the connection's key Secret by name, unless the operator-namespace cache holds it whole. */
  const loadKeySecret = (key: string, signal: AbortSignal): Promise<Outcome<void>> => {
    const [kind, namespace, name] = splitKey(key);
    const connection =
      kind === 'PlatformConnection'
        ? namespacedConnections.store.get(`${namespace}/${name}`)
        : clusterConnections.store.get(name);
    const [secretKey] =
      connection === undefined
        ? []
        : keySecretIndex(kind === 'PlatformConnection' ? '' : options.operatorNamespace)(connection);
    if (secretKey === undefined) return Promise.resolve({ ok: true, value: undefined });
    const [secretNamespace = '', secretName = ''] = secretKey.split('/');
    if (secretNamespace === options.operatorNamespace && operatorSecrets !== undefined) {
      return Promise.resolve({ ok: true, value: undefined });
    }
    return options.secretValues.load(secretNamespace, [secretName], signal);
  };
  const connectionsBySecret = (secret: KubeObject) => {
    const value = `${secret.metadata.namespace ?? ''}/${secret.metadata.name ?? ''}`;
    return [namespacedConnections, clusterConnections].flatMap(
      (informer) => informer?.store.byIndex(BY_KEY_SECRET, value).map(keyOf) ?? [],
    );
  };
  const watches: Array<Watch<KubeObject>> = [
    ...[namespacedConnections, clusterConnections]
      .filter((informer): informer is Informer<ConnectionObject> => informer !== undefined)
      .map((informer) => watchOf(informer, (object) => [keyOf(object)], specOrLifecycleChanged)),
    // A new or deleted user changes usedBy, and may release a deleting connection: looked at a
    // second after the first such change, so that a burst of users is counted in a few status
    // writes rather than one per arrival (bench:connections' 2,000 new objects cost about 50
    // writes of their two connections, each an event for every watcher, Argo CD's included).
    {
      ...watchOf(options.agentDeployments, (object) => connectionIndexValues(object), usersMayHaveChanged),
      delayMs: USER_COUNT_DELAY_MS,
    },
    watchOf(options.secrets, connectionsBySecret),
    ...(operatorSecrets === undefined ? [] : [watchOf(operatorSecrets, connectionsBySecret)]),
  ];
  const userWatches: Array<Watch<KubeObject>> = [
    watchOf(namespacedConnections, usersOf, readinessOrSpecChanged),
    watchOf(clusterConnections, usersOf, readinessOrSpecChanged),
    // A namespace's labels decide which ClusterPlatformConnections serve it: a change wakes
    // the objects there that name one, so that a refusal heals (or a grant is withdrawn).
    watchOf(
      namespaceCache,
      (namespace: KubeObject) =>
        options.agentDeployments.store
          .list()
          .filter(
            (object) =>
              object.metadata.namespace === namespace.metadata.name &&
              connectionRefOf(object)?.kind === 'ClusterPlatformConnection',
          )
          .map((object) => objectKey(object)),
      (old, current) => !sameJson(old.metadata.labels ?? {}, current.metadata.labels ?? {}),
    ),
  ];
  manager.addController(controller, watches);
  for (const informer of informers) manager.addInformer(informer);
  const loadKeySecretOf: LoadConnectionKey = (user, signal) => {
    const ref = connectionRefOf(user);
    if (ref === undefined) return undefined;
    const namespace = ref.kind === 'PlatformConnection' ? user.metadata.namespace : undefined;
    return loadKeySecret(connectionIndexValue(ref.kind, namespace, ref.name), signal);
  };
  return { registry, userWatches, loadKeySecretOf, close };
}

/** The controller's key of a connection (also the AgentDeployment index's value). */
function keyOf(connection: PlatformConnectionObject): string {
  return connectionIndexValue(connection.kind, connection.metadata.namespace, connection.metadata.name);
}

function splitKey(key: string): [ConnectionKind, string, string] {
  const [kind = '', namespace = '', ...name] = key.split('/');
  return [kind === 'ClusterPlatformConnection' ? kind : 'PlatformConnection', namespace, name.join('/')];
}

/**
 * What its users must hear about: Ready flipping, deletion starting, and any spec change
 * (the namespaces it serves, the agent hosts its key may go to).
 */
function readinessOrSpecChanged(old: ConnectionObject, current: ConnectionObject): boolean {
  // Ready's generation too: after a spec change users wait for the probe of the new spec.
  const ready = (object: ConnectionObject) => {
    const condition = object.status?.conditions?.find((c) => c.type === 'Ready');
    return `${condition?.status ?? ''}@${condition?.observedGeneration ?? ''}`;
  };
  return (
    ready(old) !== ready(current) ||
    old.metadata.deletionTimestamp !== current.metadata.deletionTimestamp ||
    old.metadata.generation !== current.metadata.generation
  );
}

/**
 * Our own status writes do not wake the connection again, except while it is deleting: then
 * another shard's entry of shardUsers dropping to 0 may be what releases it.
 */
function specOrLifecycleChanged(old: ConnectionObject, current: ConnectionObject): boolean {
  return (
    old.metadata.generation !== current.metadata.generation ||
    old.metadata.deletionTimestamp !== current.metadata.deletionTimestamp ||
    !sameJson(old.metadata.finalizers ?? [], current.metadata.finalizers ?? []) ||
    (current.metadata.deletionTimestamp !== undefined &&
      !sameJson(old.status?.shardUsers ?? [], current.status?.shardUsers ?? []))
  );
}

/** What a shard's Lease says; a read that fails is 'unknown', which never expires an entry. */
async function readShardLease(
  kube: KubeClient,
  namespace: string,
  name: string,
  signal: AbortSignal,
): Promise<ShardLease> {
  try {
    const lease = await new KubeLeaseStore(kube, namespace, name).get(signal);
    if (lease === undefined) return { kind: 'absent' };
    return {
      kind: 'found',
      renewedAt: lease.record.renewTime,
      durationSeconds: lease.record.leaseDurationSeconds,
    };
  } catch {
    return { kind: 'unknown' };
  }
}

function usersMayHaveChanged(
  old: KubeObject & ConnectionUser,
  current: KubeObject & ConnectionUser,
): boolean {
  return (
    old.metadata.deletionTimestamp !== current.metadata.deletionTimestamp ||
    !sameJson(connectionRefOf(old), connectionRefOf(current))
  );
}

/**
 * A kind whose CRD may come later (or whose permission may be missing): its cache is empty
 * and synced meanwhile, and is looked for again this often.
 */
export const MAY_BE_ABSENT = { recheckMs: 10_000 };

function typeOf(object: PlatformConnectionObject): ResourceType {
  return object.kind === 'ClusterPlatformConnection' ? CLUSTER_PLATFORM_CONNECTIONS : PLATFORM_CONNECTIONS;
}
