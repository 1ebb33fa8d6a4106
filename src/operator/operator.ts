// Assembles the operator: caches of AgentDeployments and Secrets, the controller that runs
// the reconciler, the batched poller, the control-plane client and its budget, leader
// election, metrics and probes. The embedded demo and the tests start it the same way the
// `run` command does, with only the kubeconfig and URLs differing.
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import {
  API_VERSION,
  AgentDeploymentSpec,
  GROUP,
  PLURAL,
  VERSION,
  deploymentName,
  toWireCreateRequest,
} from '../api/agentdeployment/index.js';
import { RateBudget } from '../controlplane/budget/index.js';
import { createControlPlaneClient } from '../controlplane/client/index.js';
import { createControlPlaneMetrics } from '../observability/controlplane-metrics.js';
import { bindDomainMetrics, type ConditionCount } from '../observability/domain-metrics.js';
import { startObservabilityServer, type ObservabilityServer } from '../observability/http-server.js';
import { createOperatorRegistry } from '../observability/registry.js';
import { bindSecretValueMetrics } from '../observability/secret-metrics.js';
import { bindAgentDeploymentReadyMetric } from '../observability/object-ready-metrics.js';
import { objectKey, ownedDeploymentId } from '../reconcilers/agentdeployment/object.js';
import type { ReconcilerTimings } from '../reconcilers/agentdeployment/defaults.js';
import type { FleetPort, LaneResolution } from '../reconcilers/agentdeployment/ports.js';
import { AgentDeploymentReconciler } from '../reconcilers/agentdeployment/reconciler.js';
import { referencedSecretNames, secretKeyValue } from '../reconcilers/agentdeployment/secrets.js';
import { systemClock } from '../runtime/clock.js';
import { Controller } from '../runtime/controller/controller.js';
import type { IndexedStore } from '../runtime/cache/store.js';
import { defaultControllerRateLimiter } from '../runtime/workqueue/rate-limiter.js';
import { EventRecorder } from '../runtime/events/recorder.js';
import { kubeClientFrom, loadClusterAccess, type ClusterAccess } from '../runtime/kube/cluster-access.js';
import type { KubeObject } from '../runtime/kube/objects.js';
import type { ResourceType } from '../runtime/kube/resource.js';
import { Informer } from '../runtime/manager/informer.js';
import { Manager, watchOf } from '../runtime/manager/manager.js';
import type { OperatorConfig } from './config.js';
import { agentCallPort } from './agent-call-port.js';
import { OrphanRecords } from './orphan-records.js';
import { adoptionPolicy } from './adoption-policy.js';
import { secretMetadataInformer } from './secret-metadata.js';
import { SecretValues } from './secret-values.js';
import { ConnectionLanes } from './connection-lanes.js';
import { bindReconcileFailureMetrics } from './reconcile-metrics.js';
import { BY_CONNECTION, setUpConnections } from './connections.js';
import { connectionIndexValues, resolveObjectConnection } from '../connections/agentdeployment-connection.js';
import type { ConnectionRegistry } from '../connections/registry.js';
import { PLATFORM_API_URLS } from '../connections/endpoints.js';
import { setUpDeletions } from './deletions.js';
import { AgentDeploymentKubePort, type AgentDeploymentObject } from './kube-port.js';
import { shouldReconcileOnUpdate } from './update-predicate.js';

export const CONTROLLER_NAME = 'agentdeployment';
export const AGENT_DEPLOYMENTS: ResourceType = { group: GROUP, version: VERSION, plural: PLURAL };
const BY_SECRET = 'bySecret';
const BY_DEPLOYMENT_NAME = 'byDeploymentName';
const BY_OWNED_DEPLOYMENT = 'byOwnedDeployment';
/** Per-key backoff of failed reconciles: 1 s doubling to 5 min, 10% jitter. */
const FAILURE_BACKOFF = { baseDelayMs: 1_000, maxDelayMs: 5 * 60_000 };

export interface OperatorOptions {
  config: OperatorConfig;
  logger: Logger;
  /** Ready cluster access (the demo's, a test's); otherwise from config.kubeconfig or the environment. */
  kubeConfig?: ClusterAccess;
  /** Leader-election identity; default hostname and pid. */
  identity?: string;
  /** Serve /metrics, /healthz, /readyz on config.metricsBindAddress (default true). */
  serveHttp?: boolean;
  reconciler?: Partial<ReconcilerTimings>;
}

export interface RunningOperator {
  registry: Registry;
  manager: Manager;
  metricsUrl?: string;
  /** Resolves when the operator has stopped. */
  done: Promise<void>;
  stop(): Promise<void>;
}

export async function startOperator(options: OperatorOptions): Promise<RunningOperator> {
  const { config, logger } = options;
  const registry = createOperatorRegistry();

  const kubeConfig = options.kubeConfig ?? (await loadClusterAccess(kubeConfigSource(config)));
  const { client: kube, transport } = kubeClientFrom(kubeConfig);

  // Tenant-chosen URLs (a PlatformConnection's, an agent's) are connected to under this policy.
  const addressPolicy = { allowPrivateNetworks: config.allowPrivateNetworks === true };
  const rateLimit = config.rateLimit ?? { count: 1000, windowSeconds: 10 };
  const budget = new RateBudget({ region: config.region, overrides: { default: rateLimit } });
  const clientMetrics = createControlPlaneMetrics(registry);
  const credentials = { apiKey: config.apiKey, ...(config.tenantId ? { tenantId: config.tenantId } : {}) };
  const controlPlane = createControlPlaneClient({
    baseUrl: config.controlPlaneUrl,
    region: config.region,
    credentials,
    budget,
    logger: logger.child({ component: 'control-plane-client' }),
    metrics: clientMetrics,
  });

  const objects = Informer.forResource<AgentDeploymentObject>(kube, {
    type: AGENT_DEPLOYMENTS,
    namespaces: config.namespaces,
    logger: logger.child({ informer: PLURAL }),
    indexers: {
      [BY_SECRET]: secretKeysOf,
      [BY_DEPLOYMENT_NAME]: (object) => [deploymentName(object)],
      [BY_OWNED_DEPLOYMENT]: (object) => {
        const id = ownedDeploymentId(object);
        return id === undefined ? [] : [id];
      },
      [BY_CONNECTION]: connectionIndexValues,
    },
  });
  // Names and versions of Secrets only; values are read by name for referenced ones.
  const secrets = secretMetadataInformer(kube, config.namespaces, logger.child({ informer: 'secrets' }));
  const secretValues = new SecretValues(kube, secrets.store);
  // A value stays only while an object references its Secret and the Secret exists.
  const forgetUnreferenced = (object: AgentDeploymentObject): void => {
    for (const key of secretKeysOf(object)) {
      if (objects.store.byIndex(BY_SECRET, key).length === 0) secretValues.forget(key);
    }
  };
  objects.addHandler({ onUpdate: (old) => forgetUnreferenced(old), onDelete: forgetUnreferenced });
  bindSecretValueMetrics(registry, () => secretValues.size);
  bindAgentDeploymentReadyMetric(registry, () => objects.store.list());
  secrets.addHandler({
    onDelete: (secret) => secretValues.forget(`${secret.metadata.namespace ?? ''}/${secret.metadata.name}`),
  });

  const identity = options.identity ?? `${hostname()}_${process.pid}`;
  const recorder = new EventRecorder({
    client: kube,
    component: 'agent-operator',
    instance: identity,
    logger,
  });
  const kubePort = new AgentDeploymentKubePort({
    client: kube,
    type: AGENT_DEPLOYMENTS,
    objects: objects.store,
    secrets: secretValues,
    recorder,
    logger,
  });

  // The connections' registry, caches and controller; the default connection is the one above.
  const connections = await setUpConnections({
    kube,
    logger,
    registry,
    recorder,
    namespaces: config.namespaces,
    operatorNamespace: config.leaderElectionNamespace,
    concurrency: config.concurrency,
    agentDeployments: objects,
    secrets,
    secretValues,
    defaultConnection: {
      client: controlPlane,
      budget,
      credentials,
      platformApiUrl: defaultPlatformApiUrl(config),
      agentHosts: config.agentHosts ?? [],
      dataDeletionNamespaces: config.dataDeletionNamespaces ?? [config.leaderElectionNamespace],
    },
    clientMetrics,
    addressPolicy,
  });

  // The pollers and the controller refer to each other: the pollers enqueue keys.
  const enqueue = { to: (_key: string): void => {} };
  const failureMetrics = bindReconcileFailureMetrics(registry);
  const pollerLogger = logger.child({ component: 'poller' });
  const timings: Partial<ReconcilerTimings> = {
    inflightPollMs: config.pollIntervalMs,
    resyncPeriodMs: config.resyncPeriodMs,
    ...options.reconciler,
  };
  const defaultConnection = connections.registry.defaultConnection();
  const lanes = new ConnectionLanes({
    enqueue: (key) => enqueue.to(key),
    concurrency: config.concurrency,
    ...(timings.inflightPollMs === undefined ? {} : { inflightPollMs: timings.inflightPollMs }),
    ...(timings.resyncPeriodMs === undefined ? {} : { resyncPeriodMs: timings.resyncPeriodMs }),
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
  const defaultLane = lanes.laneFor(defaultConnection.controlPlaneId, controlPlane, defaultConnection.label);
  const connectionOf = (object: AgentDeploymentObject): LaneResolution => {
    const resolution = resolveObjectConnection(connections.registry, object);
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
        object === undefined ? undefined : resolveObjectConnection(connections.registry, object);
      if (resolution === undefined || !resolution.ok) return '';
      const credentials = resolution.credentials;
      return 'apiKey' in credentials ? credentials.apiKey : credentials.bearerToken;
    },
    {
      allowInsecure: config.allowInsecure === true,
      allowPrivateNetworks: addressPolicy.allowPrivateNetworks,
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
    config.leaderElectionNamespace,
    `${config.leaderElectionId}-orphans`,
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
  const reconcilerLogger = logger.child({ controller: CONTROLLER_NAME });
  const reconciler = new AgentDeploymentReconciler<AgentDeploymentObject>({
    controlPlane: defaultLane.controlPlane,
    kube: kubePort,
    fleet: fleetPort(objects.store, connections.registry),
    observations: defaultLane.observations,
    poller: defaultLane.poller,
    connection: connectionOf,
    specProblem,
    desiredState: (object, resolved, ids) =>
      toWireCreateRequest(object as AgentDeploymentObject & { spec: AgentDeploymentSpec }, resolved, ids),
    namedIds: (object) => {
      const config = (object.spec as Partial<AgentDeploymentSpec>).sourceConfig;
      return {
        ...(config?.listenerRef === undefined ? {} : { listener: config.listenerRef.name }),
        ...(config?.integrationRef === undefined ? {} : { integration: config.integrationRef.name }),
      };
    },
    deploymentName: (object) => deploymentName(object),
    logger: reconcilerLogger,
    clock: systemClock,
    metrics: {
      ...bindDomainMetrics(registry, () => countByCondition(objects.store.list())),
      reconcileFailed: failureMetrics.reconcileFailed,
    },
    timings,
    agents,
    agentTrust: defaultConnection.agentTrust,
    wake: (key) => enqueue.to(key),
    adoptionForbidden: adoptionPolicy(config.adoptionNamespaces),
    orphans,
  });

  const controller = new Controller({
    name: CONTROLLER_NAME,
    maxConcurrentReconciles: config.concurrency,
    registry,
    // The controller adds the `controller` field to its own lines.
    logger,
    rateLimiter: () => defaultControllerRateLimiter(systemClock, FAILURE_BACKOFF),
    // One shard per connection: a saturated key's objects cannot hold the others' keys back.
    shardOf: (key) => connectionShardOf(objects.store.get(key)),
    reconcile: async (key, signal) => {
      try {
        return await reconciler.reconcile(key, signal);
      } catch (error) {
        // A bug, not a failure class: count it like controller-runtime counts panics.
        return error instanceof Error ? error : new Error(String(error));
      }
    },
  });

  enqueue.to = (key) => controller.enqueue(key);

  const manager = new Manager({
    client: kube,
    registry,
    logger,
    ...(config.leaderElect
      ? {
          leaderElection: {
            namespace: config.leaderElectionNamespace,
            leaseName: config.leaderElectionId,
            identity,
          },
        }
      : {}),
  });
  manager.addController(controller, [
    // A change to one claimant of a control-plane name (its deletion above all) may free the
    // name for another: wake every object that resolves to the same name.
    watchOf(
      objects,
      (object) => [
        ...new Set([
          objectKey(object),
          ...objects.store.byIndex(BY_DEPLOYMENT_NAME, safeDeploymentName(object)).map(objectKey),
        ]),
      ],
      shouldReconcileOnUpdate,
    ),
    watchOf(secrets, (secret: KubeObject) =>
      objects.store
        .byIndex(BY_SECRET, `${secret.metadata.namespace ?? ''}/${secret.metadata.name}`)
        .map(objectKey),
    ),
    ...connections.userWatches,
  ]);
  if (connections.controller) manager.addController(connections.controller, connections.watches);
  for (const informer of connections.informers) manager.addInformer(informer);
  const deletions = setUpDeletions(manager, {
    kube,
    logger,
    registry,
    recorder,
    config,
    connections: connections.registry,
    defaultBudget: budget,
  });
  manager.addLeaderRunnable({ start: () => void loadOrphans(), stop: () => Promise.resolve() });
  // The pollers spend budget: only the leader runs them.
  manager.addLeaderRunnable({ start: () => lanes.start(), stop: () => lanes.stop() });

  let server: ObservabilityServer | undefined;
  if (options.serveHttp ?? true) {
    server = await startObservabilityServer({
      ...config.metricsBindAddress,
      registry,
      liveness: () => {
        const health = manager.health();
        return { ok: health.live, reason: health.live ? 'ok' : health.problems.join('; ') };
      },
      readiness: () => {
        const health = manager.health();
        return {
          ok: health.ready,
          reason: health.ready ? `ok (${health.role})` : health.problems.join('; '),
        };
      },
    });
  }

  const done = manager.start();
  logger.info(
    {
      apiVersion: API_VERSION,
      namespaces: config.namespaces.length > 0 ? config.namespaces : 'all',
      leaderElection: config.leaderElect,
      metrics: server?.url,
    },
    'operator started',
  );
  let stopping: Promise<void> | undefined;
  return {
    registry,
    manager,
    metricsUrl: server?.url,
    done,
    stop: () => {
      stopping ??= (async () => {
        deletions.beginStop();
        await manager.stop();
        reconciler.stop();
        await agents.close();
        await lanes.stop();
        await server?.close();
        await connections.close();
        await deletions.close();
        await controlPlane.close();
        budget.close();
        transport.close?.();
      })();
      return stopping;
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
    claimantsOf: (name, laneId) =>
      store
        .byIndex(BY_DEPLOYMENT_NAME, name)
        .filter((object) => controlPlaneOf(object) === laneId)
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
      const [owner] = [...store.byIndex(BY_OWNED_DEPLOYMENT, id)].sort((a, b) =>
        creationOrder(a).localeCompare(creationOrder(b)),
      );
      return owner === undefined ? undefined : objectKey(owner);
    },
  };
}

/** The connection an object names (not resolved: the name alone is enough to share workers fairly). */
function connectionShardOf(object: AgentDeploymentObject | undefined): string {
  const ref = (object?.spec as Partial<AgentDeploymentSpec> | undefined)?.connectionRef;
  if (ref === undefined) return '';
  return ref.kind === 'PlatformConnection'
    ? `${ref.kind}/${object?.metadata.namespace ?? ''}/${ref.name}`
    : `${ref.kind}/${ref.name}`;
}

/** `namespace/name` of each Secret the object references (its own namespace only), its smoke test's key included. */
function secretKeysOf(object: AgentDeploymentObject): string[] {
  const ownKey = (object.spec as Partial<AgentDeploymentSpec>).smokeTest?.apiKeySecretRef?.name;
  const names = referencedSecretNames(object.spec.secrets);
  if (ownKey !== undefined && !names.includes(ownKey)) names.push(ownKey);
  return names.map((name) => `${object.metadata.namespace}/${name}`);
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

function safeDeploymentName(object: AgentDeploymentObject): string {
  try {
    return deploymentName(object);
  } catch {
    return object.metadata.name;
  }
}

/** Where the default connection's platform data API is: the emulator serves both APIs on one URL. */
function defaultPlatformApiUrl(config: OperatorConfig): string {
  return (config.controlPlaneUrl ?? PLATFORM_API_URLS[config.region]).replace(/\/+$/, '');
}

function kubeConfigSource(config: OperatorConfig) {
  if (config.kubeconfig) return { kind: 'file', path: config.kubeconfig } as const;
  if (process.env.KUBERNETES_SERVICE_HOST) return { kind: 'in-cluster' } as const;
  return { kind: 'default' } as const;
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
