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
import { RateBudget, credentialFingerprint } from '../controlplane/budget/index.js';
import { createControlPlaneClient, resolveEndpoint } from '../controlplane/client/index.js';
import { createControlPlaneMetrics } from '../observability/controlplane-metrics.js';
import { bindDomainMetrics, type ConditionCount } from '../observability/domain-metrics.js';
import { startObservabilityServer, type ObservabilityServer } from '../observability/http-server.js';
import { createOperatorRegistry } from '../observability/registry.js';
import { objectKey, ownedDeploymentId } from '../reconcilers/agentdeployment/object.js';
import { FleetPoller } from '../reconcilers/agentdeployment/observation/fleet-poller.js';
import { ObservationCache } from '../reconcilers/agentdeployment/observation/observation-cache.js';
import type { ReconcilerTimings } from '../reconcilers/agentdeployment/defaults.js';
import type { FleetPort } from '../reconcilers/agentdeployment/ports.js';
import { AgentDeploymentReconciler } from '../reconcilers/agentdeployment/reconciler.js';
import { referencedSecretNames, type SecretSource } from '../reconcilers/agentdeployment/secrets.js';
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
import { controlPlanePort } from './control-plane-port.js';
import { bindReconcileFailureMetrics } from './reconcile-metrics.js';
import { BY_CONNECTION, connectionProblem, setUpConnections } from './connections.js';
import { connectionIndexValues } from '../connections/agentdeployment-connection.js';
import { setUpDeletions } from './deletions.js';
import { AgentDeploymentKubePort, type AgentDeploymentObject } from './kube-port.js';
import { shouldReconcileOnUpdate } from './update-predicate.js';

export const CONTROLLER_NAME = 'agentdeployment';
export const AGENT_DEPLOYMENTS: ResourceType = { group: GROUP, version: VERSION, plural: PLURAL };
const SECRETS: ResourceType = { group: '', version: 'v1', plural: 'secrets' };
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

  const rateLimit = config.rateLimit ?? { count: 1000, windowSeconds: 10 };
  const budget = new RateBudget({ region: config.region, overrides: { default: rateLimit } });
  const clientMetrics = createControlPlaneMetrics(registry);
  const controlPlane = createControlPlaneClient({
    baseUrl: config.controlPlaneUrl,
    region: config.region,
    credentials: { apiKey: config.apiKey, ...(config.tenantId ? { tenantId: config.tenantId } : {}) },
    budget,
    logger: logger.child({ component: 'control-plane-client' }),
    metrics: clientMetrics,
  });
  // Any deployments route stands for the whole key: they all fall in the default row.
  const budgetProbe = budgetHeadroomProbe(budget, {
    method: 'GET',
    path: `${resolveEndpoint({ baseUrl: config.controlPlaneUrl, region: config.region }).pathPrefix}/v2/deployments`,
    credentialFingerprint: credentialFingerprint(config.apiKey),
  });

  const objects = Informer.forResource<AgentDeploymentObject>(kube, {
    type: AGENT_DEPLOYMENTS,
    namespaces: config.namespaces,
    logger: logger.child({ informer: PLURAL }),
    indexers: {
      [BY_SECRET]: (object) =>
        referencedSecretNames(object.spec.secrets).map((name) => `${object.metadata.namespace}/${name}`),
      [BY_DEPLOYMENT_NAME]: (object) => [deploymentName(object)],
      [BY_OWNED_DEPLOYMENT]: (object) => {
        const id = ownedDeploymentId(object);
        return id === undefined ? [] : [id];
      },
      [BY_CONNECTION]: connectionIndexValues,
    },
  });
  const secrets = Informer.forResource<KubeObject & SecretSource>(kube, {
    type: SECRETS,
    namespaces: config.namespaces,
    logger: logger.child({ informer: 'secrets' }),
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
    secrets: secrets.store,
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
    defaultConnection: { client: controlPlane, budget },
    clientMetrics,
  });

  const observations = new ObservationCache();
  // The poller and the controller refer to each other: the poller enqueues keys.
  const enqueue = { to: (_key: string): void => {} };
  const port = controlPlanePort({
    client: controlPlane,
    allowedRatePerSecond: rateLimit.count / rateLimit.windowSeconds,
    budgetHeadroom: budgetProbe,
  });
  const failureMetrics = bindReconcileFailureMetrics(registry);
  const pollerLogger = logger.child({ component: 'poller' });
  const timings: Partial<ReconcilerTimings> = {
    inflightPollMs: config.pollIntervalMs,
    resyncPeriodMs: config.resyncPeriodMs,
    ...options.reconciler,
  };
  const poller = new FleetPoller({
    controlPlane: port,
    cache: observations,
    enqueue: (key) => enqueue.to(key),
    inflightPollMs: timings.inflightPollMs,
    resyncPeriodMs: timings.resyncPeriodMs,
    onHealthChange: (failure) => {
      failureMetrics.controlPlaneHealth(failure);
      if (failure)
        pollerLogger.warn(
          { class: failure.kind, error: failure.message },
          'control plane failing; backing off',
        );
      else pollerLogger.info('control plane answering again');
    },
    onError: (message) => pollerLogger.debug(message),
  });
  const reconcilerLogger = logger.child({ controller: CONTROLLER_NAME });
  const reconciler = new AgentDeploymentReconciler<AgentDeploymentObject>({
    controlPlane: port,
    kube: kubePort,
    fleet: fleetPort(objects.store),
    observations,
    poller,
    specProblem: (object) => specProblem(object) ?? connectionProblem(connections.registry, object),
    desiredState: (object, resolved) =>
      toWireCreateRequest(object as AgentDeploymentObject & { spec: AgentDeploymentSpec }, resolved),
    deploymentName: (object) => deploymentName(object),
    logger: reconcilerLogger,
    clock: systemClock,
    metrics: {
      ...bindDomainMetrics(registry, () => countByCondition(objects.store.list())),
      reconcileFailed: failureMetrics.reconcileFailed,
    },
    timings,
  });

  const controller = new Controller({
    name: CONTROLLER_NAME,
    maxConcurrentReconciles: config.concurrency,
    registry,
    // The controller adds the `controller` field to its own lines.
    logger,
    rateLimiter: () => defaultControllerRateLimiter(systemClock, FAILURE_BACKOFF),
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
  const deletions = await setUpDeletions(manager, {
    kube,
    logger,
    registry,
    recorder,
    config,
    connections: connections.registry,
    defaultBudget: budget,
  });
  // The poller spends budget: only the leader runs it.
  manager.addLeaderRunnable({ start: () => poller.start(), stop: () => poller.stop() });

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
        await poller.stop();
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

function fleetPort(store: IndexedStore<AgentDeploymentObject>): FleetPort {
  return {
    claimantsOf: (name) =>
      store.byIndex(BY_DEPLOYMENT_NAME, name).map((object) => {
        const owned = ownedDeploymentId(object);
        return {
          key: objectKey(object),
          uid: object.metadata.uid ?? '',
          creationTimestamp: object.metadata.creationTimestamp ?? '',
          ...(owned === undefined ? {} : { ownedDeploymentId: owned }),
        };
      }),
    ownerOf: (id) => {
      const owner = store.byIndex(BY_OWNED_DEPLOYMENT, id)[0];
      return owner === undefined ? undefined : objectKey(owner);
    },
  };
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

function kubeConfigSource(config: OperatorConfig) {
  if (config.kubeconfig) return { kind: 'file', path: config.kubeconfig } as const;
  if (process.env.KUBERNETES_SERVICE_HOST) return { kind: 'in-cluster' } as const;
  return { kind: 'default' } as const;
}

function budgetHeadroomProbe(budget: RateBudget, request: Parameters<RateBudget['report']>[0]): () => number {
  return () => {
    const reports = budget.report(request);
    if (reports.length === 0) return 1;
    return Math.min(
      ...reports.map((report) =>
        report.blockedForMs > 0 ? 0 : report.tokens / Math.max(report.capacity, 1),
      ),
    );
  };
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
