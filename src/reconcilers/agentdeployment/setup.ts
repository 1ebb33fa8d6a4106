// The AgentDeployment controller's set-up: its cache and indexes, the connection lanes and
// their batched pollers, the agent-call port, the orphan records, the reconciler with the
// domain rules it is given (how a spec is read, which wire request it asks for, which ids it
// names), the controller and its watches. The process (src/operator/) hands it the shared
// clients and caches; nothing of a reconcile lives there.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import {
  AgentDeploymentSpec,
  GROUP,
  PLURAL,
  VERSION,
  deploymentName,
  toWireCreateRequest,
} from '../../api/agentdeployment/index.js';
import { resolveObjectConnection } from '../../connections/agentdeployment-connection.js';
import type { ConnectionRegistry } from '../../connections/registry.js';
import type { ControlPlaneClient } from '../../controlplane/client/index.js';
import { bindDomainMetrics, type ConditionCount } from '../../observability/domain-metrics.js';
import { bindAgentDeploymentReadyMetric } from '../../observability/object-ready-metrics.js';
import type { IndexedStore } from '../../runtime/cache/store.js';
import { systemClock } from '../../runtime/clock.js';
import { Controller } from '../../runtime/controller/controller.js';
import type { EventRecorder } from '../../runtime/events/recorder.js';
import type { KubeClient } from '../../runtime/kube/client.js';
import type { KubeObject } from '../../runtime/kube/objects.js';
import type { ResourceType } from '../../runtime/kube/resource.js';
import { Informer } from '../../runtime/manager/informer.js';
import { Departures } from '../../runtime/manager/departures.js';
import { watchOf, type Manager, type Watch } from '../../runtime/manager/manager.js';
import type { SecretMetadata } from '../../runtime/secrets/secret-metadata.js';
import type { SecretValues } from '../../runtime/secrets/secret-values.js';
import { configMapMetadataInformer, configMapValues } from '../../runtime/secrets/configmap-values.js';
import { defaultControllerRateLimiter } from '../../runtime/workqueue/rate-limiter.js';
import { BY_CONNECTION } from '../connection/setup.js';
import { afterConnectionKey, type LoadConnectionKey } from '../../connections/key-before-pass.js';
import { connectionIndexValues } from '../../connections/agentdeployment-connection.js';
import { adoptionPolicy } from './adoption-policy.js';
import { agentCallPort } from './agent-call-port.js';
import { ConnectionLanes } from './connection-lanes.js';
import { connectionShardOf, connectionTurnSizeOf } from './connection-turns.js';
import { ConfigMapExports, exportOwnerKey, exportedConfigMapInformer } from './export-port.js';
import type { ReconcilerTimings } from './defaults.js';
import { AgentDeploymentKubePort, type AgentDeploymentObject } from './kube-port.js';
import { objectKey, ownedDeploymentId } from './object.js';
import { OrphanRecords } from './orphan-records.js';
import type { FleetPort, LaneResolution } from './ports.js';
import { bindReconcileFailureMetrics } from './reconcile-metrics.js';
import { AgentDeploymentReconciler } from './reconciler.js';
import { secretKeyValue } from './secrets.js';
import { specReferences } from './spec-references.js';
import { isSettled, shouldReconcileOnUpdate } from './update-predicate.js';

export const CONTROLLER_NAME = 'agentdeployment';
export const AGENT_DEPLOYMENTS: ResourceType = { group: GROUP, version: VERSION, plural: PLURAL };
const BY_SECRET = 'bySecret';
const BY_CONFIG_MAP = 'byConfigMap';
const BY_DEPLOYMENT_NAME = 'byDeploymentName';
const BY_OWNED_DEPLOYMENT = 'byOwnedDeployment';
/** Per-key backoff of failed reconciles: 1 s doubling to 5 min, 10% jitter. */
const FAILURE_BACKOFF = { baseDelayMs: 1_000, maxDelayMs: 5 * 60_000 };

/** The AgentDeployment cache with the indexes the controller and the connections' set-up read. */
export function agentDeploymentCache(
  kube: KubeClient,
  namespaces: string[],
  logger: Logger,
  /** A shard's selector (--shard): only the objects it matches are cached and reconciled. */
  labelSelector?: string,
): Informer<AgentDeploymentObject> {
  return Informer.forResource<AgentDeploymentObject>(kube, {
    type: AGENT_DEPLOYMENTS,
    namespaces,
    labelSelector,
    logger: logger.child({ informer: PLURAL }),
    indexers: {
      [BY_SECRET]: secretKeysOf,
      [BY_CONFIG_MAP]: configMapKeysOf,
      [BY_DEPLOYMENT_NAME]: (object) => [deploymentName(object)],
      [BY_OWNED_DEPLOYMENT]: (object) => {
        const id = ownedDeploymentId(object);
        return id === undefined ? [] : [id];
      },
      [BY_CONNECTION]: connectionIndexValues,
    },
  });
}

export interface AgentDeploymentSetupOptions {
  kube: KubeClient;
  logger: Logger;
  registry: Registry;
  recorder: EventRecorder;
  objects: Informer<AgentDeploymentObject>;
  secrets: Informer<SecretMetadata>;
  secretValues: SecretValues;
  /** The watched namespaces (all when empty): the scope of the ConfigMap watch set up here. */
  namespaces: readonly string[];
  connections: ConnectionRegistry;
  /** The connections' watches that wake the objects naming a connection. */
  connectionWatches: Array<Watch<KubeObject>>;
  /** Reads the key Secret of an object's connection before its pass (Connections.loadKeySecretOf). */
  loadConnectionKey: LoadConnectionKey;
  /** The default connection's client (objects without spec.connectionRef). */
  controlPlane: ControlPlaneClient;
  concurrency: number;
  timings: Partial<ReconcilerTimings>;
  allowInsecure: boolean;
  allowPrivateNetworks: boolean;
  /** --adoption-namespaces: where adopting an existing deployment is permitted (undefined: everywhere). */
  adoptionNamespaces: readonly string[] | undefined;
  /** Where the orphan records live: the operator's namespace and `<leader-election-id>-orphans`. */
  orphanRecords: { namespace: string; name: string };
}

export interface AgentDeployments {
  /** The lanes' pollers, the reconciler's background calls, the agent client: stop after the manager. */
  close(): Promise<void>;
}

export async function setUpAgentDeployments(
  manager: Manager,
  options: AgentDeploymentSetupOptions,
): Promise<AgentDeployments> {
  const { kube, logger, registry, objects, secretValues } = options;
  bindAgentDeploymentReadyMetric(registry, () => objects.store.list());
  // A value stays only while an object references its Secret and the Secret exists.
  const forgetUnreferenced = (object: AgentDeploymentObject): void => {
    for (const key of secretKeysOf(object)) {
      if (objects.store.byIndex(BY_SECRET, key).length === 0) secretValues.forget(key);
    }
  };
  // An update that kept the spec (the cache shares an unchanged one) references what it did.
  objects.addHandler({
    onUpdate: (old, current) => {
      if (old.spec !== current.spec) forgetUnreferenced(old);
    },
    onDelete: forgetUnreferenced,
  });
  // ConfigMaps (valueFrom.configMapKeyRef) the same way: only this controller reads them, so
  // their watch and values live here; a changed one wakes the objects that reference it.
  const configMaps = configMapMetadataInformer(
    kube,
    options.namespaces,
    logger.child({ informer: 'configmaps' }),
  );
  const configMapValuesHeld = configMapValues(kube, configMaps);
  configMaps.addHandler({
    onDelete: (configMap) =>
      configMapValuesHeld.forget(`${configMap.metadata.namespace ?? ''}/${configMap.metadata.name}`),
  });
  const forgetUnreferencedConfigMaps = (object: AgentDeploymentObject): void => {
    for (const key of configMapKeysOf(object)) {
      if (objects.store.byIndex(BY_CONFIG_MAP, key).length === 0) configMapValuesHeld.forget(key);
    }
  };
  objects.addHandler({
    onUpdate: (old, current) => {
      if (old.spec !== current.spec) forgetUnreferencedConfigMaps(old);
    },
    onDelete: forgetUnreferencedConfigMaps,
  });

  // spec.export: only the ConfigMaps the operator labelled are cached whole; whether a name is
  // taken is read from the names-only ConfigMap watch above.
  const exported = exportedConfigMapInformer(
    kube,
    options.namespaces,
    logger.child({ informer: 'exported-configmaps' }),
  );
  const exports = new ConfigMapExports(kube, exported, configMaps.store, systemClock);

  const kubePort = new AgentDeploymentKubePort({
    client: kube,
    type: AGENT_DEPLOYMENTS,
    store: objects.store,
    secrets: secretValues,
    configMaps: configMapValuesHeld,
    recorder: options.recorder,
    logger,
  });

  // The pollers and the controller refer to each other: the pollers enqueue keys.
  const enqueue = { to: (_key: string): void => {} };
  const failureMetrics = bindReconcileFailureMetrics(registry);
  const pollerLogger = logger.child({ component: 'poller' });
  const { timings } = options;
  const defaultConnection = options.connections.defaultConnection();
  const lanes = new ConnectionLanes({
    enqueue: (key) => enqueue.to(key),
    concurrency: options.concurrency,
    ...(timings.inflightPollMs === undefined ? {} : { inflightPollMs: timings.inflightPollMs }),
    ...(timings.resyncPeriodMs === undefined ? {} : { resyncPeriodMs: timings.resyncPeriodMs }),
    ...(timings.pushPollMs === undefined ? {} : { pushPollMs: timings.pushPollMs }),
    onHealthChange: (label, failure) => {
      // The unlabelled health gauges are the default connection's; a connection's own health is its Ready status.
      if (label === defaultConnection.label) failureMetrics.controlPlaneHealth(failure);
      if (failure)
        pollerLogger.warn(
          { connection: label, class: failure.kind, error: failure.message },
          'control plane failing; backing off',
        );
      else pollerLogger.info({ connection: label }, 'control plane answering again');
    },
    logger: pollerLogger,
  });
  const defaultLane = lanes.laneFor(
    defaultConnection.controlPlaneId,
    options.controlPlane,
    defaultConnection.label,
  );
  const connectionOf = (object: AgentDeploymentObject): LaneResolution => {
    const resolution = resolveObjectConnection(options.connections, object);
    if (!resolution.ok) return resolution;
    return {
      ok: true,
      lane: lanes.laneFor(resolution.controlPlaneId, resolution.client, resolution.label),
      agentTrust: resolution.agentTrust,
      label: resolution.label,
    };
  };
  // A smoke test calls the agent with the key decide chose: the object's connection's, or the
  // tenant's own from a Secret of the object's namespace (read by name, like spec.secrets).
  const agents = agentCallPort(
    (key) => {
      const object = objects.store.get(key);
      const resolution =
        object === undefined ? undefined : resolveObjectConnection(options.connections, object);
      if (resolution === undefined || !resolution.ok) return '';
      const credentials = resolution.credentials;
      return 'apiKey' in credentials ? credentials.apiKey : credentials.bearerToken;
    },
    {
      allowInsecure: options.allowInsecure,
      allowPrivateNetworks: options.allowPrivateNetworks,
      readSecretKey: async (namespace, name, key, signal) => {
        const loaded = await secretValues.load(namespace, [name], signal);
        if (!loaded.ok) return undefined;
        const source = secretValues.get(namespace, name);
        return source === undefined ? undefined : secretKeyValue(source, key);
      },
    },
  );
  // Who orphaned which deployment, in the operator's own namespace: read now and whenever
  // this replica starts leading (another leader may have written since); a failed read
  // leaves the records empty, which fails closed (adoption only from --adoption-namespaces).
  const orphans = new OrphanRecords(
    kube,
    options.orphanRecords.namespace,
    options.orphanRecords.name,
    logger.child({ component: 'orphan-records' }),
  );
  const loadOrphans = async (): Promise<void> => {
    const loaded = await orphans.load();
    if (!loaded.ok)
      logger.warn(
        { error: loaded.error.message },
        'orphan records not read; adoption falls back to --adoption-namespaces',
      );
  };
  await loadOrphans();
  const reconciler = new AgentDeploymentReconciler<AgentDeploymentObject>({
    controlPlane: defaultLane.controlPlane,
    kube: kubePort,
    fleet: fleetPort(objects.store, options.connections),
    observations: defaultLane.observations,
    poller: defaultLane.poller,
    connection: connectionOf,
    specProblem,
    desiredState: (object, resolved, ids) =>
      toWireCreateRequest(object as AgentDeploymentObject & { spec: AgentDeploymentSpec }, resolved, ids),
    namedIds,
    deploymentName: (object) => deploymentName(object),
    logger: logger.child({ controller: CONTROLLER_NAME }),
    clock: systemClock,
    metrics: {
      ...bindDomainMetrics(registry, () => countByCondition(objects.store.list())),
      reconcileFailed: failureMetrics.reconcileFailed,
    },
    timings,
    agents,
    agentTrust: defaultConnection.agentTrust,
    wake: (key) => enqueue.to(key),
    adoptionForbidden: adoptionPolicy(options.adoptionNamespaces),
    orphans,
    exports,
  });

  const departures = new Departures(objects);
  const reconcileAfterKey = afterConnectionKey(
    options.loadConnectionKey,
    (key) => objects.store.get(key),
    (key, signal) => reconciler.reconcile(key, signal),
  );
  const controller = new Controller({
    name: CONTROLLER_NAME,
    maxConcurrentReconciles: options.concurrency,
    registry,
    // The controller adds the `controller` field to its own lines.
    logger,
    rateLimiter: () => defaultControllerRateLimiter(systemClock, FAILURE_BACKOFF),
    // The workers shared between connections in turns, each as long as its key is fast.
    shardOf: (key) => connectionShardOf(objects.store.get(key)),
    shardTurnSizeOf: (key) => connectionTurnSizeOf(objects.store.get(key), connectionOf),
    // A throw is a bug, not a failure class: the controller counts and logs it like
    // controller-runtime does a panic. An object that leaves the cache (moved to another
    // shard) has its running pass abandoned before the next write.
    reconcile: departures.around(reconcileAfterKey),
  });
  enqueue.to = (key) => controller.enqueue(key);

  manager.addController(controller, [
    // A change to one claimant of a control-plane name (its deletion above all) may free the
    // name for another: wake every object that resolves to the same name.
    watchOf(
      objects,
      (object) => keysSharingName(objects.store, object),
      shouldReconcileOnUpdate,
      (object) => !isSettled(object),
    ),
    watchOf(options.secrets, (secret: KubeObject) =>
      objects.store
        .byIndex(BY_SECRET, `${secret.metadata.namespace ?? ''}/${secret.metadata.name}`)
        .map(objectKey),
    ),
    watchOf(configMaps, (configMap: KubeObject) => keysReferencingConfigMap(objects.store, configMap)),
    // An exported ConfigMap edited or deleted by someone else wakes its owner, which restores it.
    watchOf(exported, (configMap: KubeObject) => {
      const owner = exportOwnerKey(configMap);
      return owner === undefined || objects.store.get(owner) === undefined ? [] : [owner];
    }),
    ...options.connectionWatches,
  ]);
  manager.addLeaderRunnable({ start: () => void loadOrphans(), stop: () => Promise.resolve() });
  // The pollers spend budget: only the leader runs them.
  manager.addLeaderRunnable({ start: () => lanes.start(), stop: () => lanes.stop() });

  return {
    close: async () => {
      reconciler.stop();
      await agents.close();
      await lanes.stop();
    },
  };
}

function fleetPort(store: IndexedStore<AgentDeploymentObject>, connections: ConnectionRegistry): FleetPort {
  // A name is unique per control plane and tenant: objects on other connections do not compete for it.
  const controlPlaneOf = (object: AgentDeploymentObject) => {
    const resolution = resolveObjectConnection(connections, object);
    return resolution.ok ? resolution.controlPlaneId : undefined;
  };
  return {
    // Most names have one claimant, the asking object: nothing to resolve or build then.
    claimantsOf: (name, laneId, asking) =>
      store
        .byIndex(BY_DEPLOYMENT_NAME, name)
        .filter((object) => objectKey(object) !== asking && controlPlaneOf(object) === laneId)
        .map((object) => {
          const owned = ownedDeploymentId(object);
          return {
            key: objectKey(object),
            uid: object.metadata.uid ?? '',
            creationTimestamp: object.metadata.creationTimestamp ?? '',
            ...(owned === undefined ? {} : { ownedDeploymentId: owned }),
          };
        }),
    // Two records of one id mean one is forged: the object created first is the owner.
    ownerOf: (id) => {
      const recorders = store.byIndex(BY_OWNED_DEPLOYMENT, id);
      const [owner] =
        recorders.length < 2
          ? recorders
          : [...recorders].sort((a, b) => creationOrder(a).localeCompare(creationOrder(b)));
      return owner === undefined ? undefined : objectKey(owner);
    },
  };
}

/** The listener and integration the spec names by name (listenerRef, integrationRef), if any. */
function namedIds(object: AgentDeploymentObject): { listener?: string; integration?: string } {
  const config = (object.spec as Partial<AgentDeploymentSpec>).sourceConfig;
  return {
    ...(config?.listenerRef === undefined ? {} : { listener: config.listenerRef.name }),
    ...(config?.integrationRef === undefined ? {} : { integration: config.integrationRef.name }),
  };
}

/** `namespace/name` of each Secret the object references (its own namespace only), its smoke test's key included. */
function secretKeysOf(object: AgentDeploymentObject): readonly string[] {
  return specReferences(object).secretKeys;
}

/** The keys of the objects a changed ConfigMap wakes: exactly those that reference it (configMapKeyRef, envFrom). */
export function keysReferencingConfigMap(
  store: IndexedStore<AgentDeploymentObject>,
  configMap: KubeObject,
): string[] {
  return store
    .byIndex(BY_CONFIG_MAP, `${configMap.metadata.namespace ?? ''}/${configMap.metadata.name}`)
    .map(objectKey);
}

/** `namespace/name` of each ConfigMap the object references (its own namespace only). */
function configMapKeysOf(object: AgentDeploymentObject): readonly string[] {
  return specReferences(object).configMapKeys;
}

function creationOrder(object: AgentDeploymentObject): string {
  return `${object.metadata.creationTimestamp ?? ''}|${object.metadata.uid ?? ''}`;
}

/** Why the operator cannot understand an object's spec (it slipped past validation), if so. */
function specProblem(object: AgentDeploymentObject): string | undefined {
  const parsed = AgentDeploymentSpec.safeParse(object.spec);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const path = ['spec', ...(issue?.path ?? []).map(String)].join('.');
  return `${path}: ${issue?.message ?? 'invalid'}`;
}

/** The object's key, then the keys of the other objects that resolve to its control-plane name. */
function keysSharingName(
  store: IndexedStore<AgentDeploymentObject>,
  object: AgentDeploymentObject,
): string[] {
  const own = objectKey(object);
  const keys = [own];
  for (const claimant of store.byIndex(BY_DEPLOYMENT_NAME, safeDeploymentName(object))) {
    const key = objectKey(claimant);
    if (key !== own) keys.push(key);
  }
  return keys;
}

function safeDeploymentName(object: AgentDeploymentObject): string {
  try {
    return deploymentName(object);
  } catch {
    return object.metadata.name;
  }
}

function countByCondition(objects: readonly AgentDeploymentObject[]): ConditionCount[] {
  const counts = new Map<string, ConditionCount>();
  for (const object of objects) {
    for (const condition of object.status?.conditions ?? []) {
      const id = `${condition.type}/${condition.status}`;
      const entry = counts.get(id) ?? { condition: condition.type, status: condition.status, count: 0 };
      entry.count += 1;
      counts.set(id, entry);
    }
  }
  return [...counts.values()];
}
