// Assembles the operator: caches of AgentDeployments and Secrets, the controller that runs
// the reconciler, the batched poller, the control-plane client and its budget, leader
// election, metrics and probes. The embedded demo and the tests start it the same way the
// `run` command does, with only the kubeconfig and URLs differing.
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import {
  API_VERSION,
  GROUP,
  PLURAL,
  VERSION,
  deploymentName,
  toWireCreateRequest,
  type AgentDeploymentSpec,
} from '../api/agentdeployment/index.js';
import { RateBudget, credentialFingerprint } from '../controlplane/budget/index.js';
import { createControlPlaneClient, resolveEndpoint } from '../controlplane/client/index.js';
import { createControlPlaneMetrics } from '../observability/controlplane-metrics.js';
import { bindDomainMetrics, type ConditionCount } from '../observability/domain-metrics.js';
import { startObservabilityServer, type ObservabilityServer } from '../observability/http-server.js';
import { createOperatorRegistry } from '../observability/registry.js';
import { objectKey } from '../reconcilers/agentdeployment/object.js';
import { FleetPoller } from '../reconcilers/agentdeployment/observation/fleet-poller.js';
import { ObservationCache } from '../reconcilers/agentdeployment/observation/observation-cache.js';
import {
  AgentDeploymentReconciler,
  RetryableReconcileError,
  type ReconcilerOptions,
} from '../reconcilers/agentdeployment/reconciler.js';
import { referencedSecretNames, type SecretSource } from '../reconcilers/agentdeployment/secrets.js';
import { Controller } from '../runtime/controller/controller.js';
import { EventRecorder } from '../runtime/events/recorder.js';
import { kubeClientFrom, loadClusterAccess, type ClusterAccess } from '../runtime/kube/cluster-access.js';
import type { KubeObject } from '../runtime/kube/objects.js';
import type { ResourceType } from '../runtime/kube/resource.js';
import { Informer } from '../runtime/manager/informer.js';
import { Manager, watchOf } from '../runtime/manager/manager.js';
import type { OperatorConfig } from './config.js';
import { controlPlanePort } from './control-plane-port.js';
import { AgentDeploymentKubePort, type AgentDeploymentObject } from './kube-port.js';
import { shouldReconcileOnUpdate } from './update-predicate.js';

export const CONTROLLER_NAME = 'agentdeployment';
export const AGENT_DEPLOYMENTS: ResourceType = { group: GROUP, version: VERSION, plural: PLURAL };
const SECRETS: ResourceType = { group: '', version: 'v1', plural: 'secrets' };
const BY_SECRET = 'bySecret';

export interface OperatorOptions {
  config: OperatorConfig;
  logger: Logger;
  /** Ready cluster access (the demo's, a test's); otherwise from config.kubeconfig or the environment. */
  kubeConfig?: ClusterAccess;
  /** Leader-election identity; default hostname and pid. */
  identity?: string;
  /** Serve /metrics, /healthz, /readyz on config.metricsBindAddress (default true). */
  serveHttp?: boolean;
  reconciler?: Partial<ReconcilerOptions>;
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
  const controlPlane = createControlPlaneClient({
    baseUrl: config.controlPlaneUrl,
    region: config.region,
    credentials: { apiKey: config.apiKey, ...(config.tenantId ? { tenantId: config.tenantId } : {}) },
    budget,
    logger: logger.child({ component: 'control-plane-client' }),
    metrics: createControlPlaneMetrics(registry),
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

  const observations = new ObservationCache();
  // The poller and the controller refer to each other: the poller enqueues keys.
  const enqueue = { to: (_key: string): void => {} };
  const port = controlPlanePort({
    client: controlPlane,
    allowedRatePerSecond: rateLimit.count / rateLimit.windowSeconds,
    budgetHeadroom: budgetProbe,
  });
  const poller = new FleetPoller({
    controlPlane: port,
    cache: observations,
    enqueue: (key) => enqueue.to(key),
    inflightPollMs: options.reconciler?.inflightPollMs ?? config.pollIntervalMs,
    resyncPeriodMs: config.resyncPeriodMs,
    onError: (message) => logger.debug({ component: 'poller' }, message),
  });
  const reconciler = new AgentDeploymentReconciler<AgentDeploymentObject>({
    controlPlane: port,
    kube: kubePort,
    observations,
    poller,
    desiredState: (object, resolved) =>
      toWireCreateRequest(object as AgentDeploymentObject & { spec: AgentDeploymentSpec }, resolved),
    deploymentName: (object) => deploymentName(object),
    logger: logger.child({ controller: CONTROLLER_NAME }),
    metrics: bindDomainMetrics(registry, () => countByCondition(objects.store.list())),
    options: {
      inflightPollMs: config.pollIntervalMs,
      resyncPeriodMs: config.resyncPeriodMs,
      ...options.reconciler,
    },
  });

  const controller = new Controller({
    name: CONTROLLER_NAME,
    maxConcurrentReconciles: config.concurrency,
    registry,
    logger: logger.child({ controller: CONTROLLER_NAME }),
    reconcile: async (key) => {
      try {
        return await reconciler.reconcile(key);
      } catch (error) {
        if (error instanceof RetryableReconcileError) return error;
        logger.warn(
          { key, error: error instanceof Error ? error.message : String(error) },
          'reconcile failed',
        );
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
    watchOf(objects, undefined, shouldReconcileOnUpdate),
    watchOf(secrets, (secret: KubeObject) =>
      objects.store
        .byIndex(BY_SECRET, `${secret.metadata.namespace ?? ''}/${secret.metadata.name}`)
        .map(objectKey),
    ),
  ]);
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
        await manager.stop();
        await poller.stop();
        await server?.close();
        await controlPlane.close();
        budget.close();
        transport.close?.();
      })();
      return stopping;
    },
  };
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
