// The process: configuration, the shared clients and caches (Kubernetes, the default
// connection's control-plane client and budget, Secrets, events), the manager with leader
// election, metrics and probes, and the list of controllers to set up, each from its own
// folder under src/reconcilers/. No domain rule lives here. The embedded demo and the tests
// start it the same way the `run` command does, with only the kubeconfig and URLs differing.
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { API_VERSION } from '../api/agentdeployment/index.js';
import { PLATFORM_API_URLS } from '../connections/endpoints.js';
import { RateBudget } from '../controlplane/budget/index.js';
import { createControlPlaneClient } from '../controlplane/client/index.js';
import { createControlPlaneMetrics } from '../observability/controlplane-metrics.js';
import { startObservabilityServer, type ObservabilityServer } from '../observability/http-server.js';
import { createOperatorRegistry } from '../observability/registry.js';
import { bindSecretValueMetrics } from '../observability/secret-metrics.js';
import type { ReconcilerTimings } from '../reconcilers/agentdeployment/defaults.js';
import { agentDeploymentCache, setUpAgentDeployments } from '../reconcilers/agentdeployment/setup.js';
import { setUpConnections } from '../reconcilers/connection/setup.js';
import { setUpDeletions } from '../reconcilers/deletion/setup.js';
import { EventRecorder } from '../runtime/events/recorder.js';
import { kubeClientFrom, loadClusterAccess, type ClusterAccess } from '../runtime/kube/cluster-access.js';
import { Manager } from '../runtime/manager/manager.js';
import { secretMetadataInformer } from '../runtime/secrets/secret-metadata.js';
import { SecretValues } from '../runtime/secrets/secret-values.js';
import type { OperatorConfig } from './config.js';
import { bindShardInfoMetric, shardScope } from './shard.js';

/** The AgentDeployment resource, for the demo and the tests that start the operator. */
export { AGENT_DEPLOYMENTS } from '../reconcilers/agentdeployment/setup.js';

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
  const { config } = options;
  const shard = shardScope(config.shard, config.leaderElectionId);
  // Every line of a sharded replica names its shard.
  const logger = shard.name === undefined ? options.logger : options.logger.child({ shard: shard.name });
  const registry = createOperatorRegistry();
  bindShardInfoMetric(registry, shard);

  const kubeConfig = options.kubeConfig ?? (await loadClusterAccess(kubeConfigSource(config)));
  const { client: kube, transport } = kubeClientFrom(kubeConfig);

  // Tenant-chosen URLs (a PlatformConnection's, an agent's) are connected to under this policy.
  const addressPolicy = { allowPrivateNetworks: config.allowPrivateNetworks === true };
  const rateLimit = config.rateLimit ?? { count: 1000, windowSeconds: 10 };
  const budget = new RateBudget({ region: config.region, overrides: { default: rateLimit } });
  const clientMetrics = createControlPlaneMetrics(registry);
  const credentials = { apiKey: config.apiKey, ...(config.tenantId ? { tenantId: config.tenantId } : {}) };
  const identity = options.identity ?? `${hostname()}_${process.pid}`;
  // Every client asks right before each request: a replica that lost its lease (even one just
  // resumed from a freeze that has not heard so yet) sends nothing, on any connection.
  const holdsLease = (): boolean => manager.holdsLease();
  const controlPlane = createControlPlaneClient({
    baseUrl: config.controlPlaneUrl,
    region: config.region,
    credentials,
    budget,
    userAgentIdentity: identity,
    mayCall: holdsLease,
    logger: logger.child({ component: 'control-plane-client' }),
    metrics: clientMetrics,
  });

  // Only the sharded kinds take the shard's selector: every shard needs every connection,
  // Secret and ConfigMap its objects may name.
  const objects = agentDeploymentCache(kube, config.namespaces, logger, shard.labelSelector);
  // Names and versions of Secrets only; values are read by name for referenced ones.
  const secrets = secretMetadataInformer(kube, config.namespaces, logger.child({ informer: 'secrets' }));
  const secretValues = new SecretValues(kube, secrets.store);
  bindSecretValueMetrics(registry, () => secretValues.size);
  secrets.addHandler({
    onDelete: (secret) => secretValues.forget(`${secret.metadata.namespace ?? ''}/${secret.metadata.name}`),
  });

  const recorder = new EventRecorder({
    client: kube,
    component: 'agent-operator',
    instance: identity,
    logger,
  });
  const manager = new Manager({
    client: kube,
    registry,
    logger,
    ...(config.leaderElect
      ? {
          leaderElection: {
            namespace: config.leaderElectionNamespace,
            leaseName: shard.leaseName,
            identity,
          },
        }
      : {}),
  });
  // The connections' registry, caches and controller; the default connection is the one above.
  const connections = await setUpConnections(manager, {
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
    mayCall: holdsLease,
    // Connections are not sharded: each shard counts its own users of them, beside the others'.
    ...(shard.name === undefined
      ? {}
      : {
          shard: {
            name: shard.name,
            leaseNamespace: config.leaderElectionNamespace,
            leaseNameOf: (name: string) => shardScope(name, config.leaderElectionId).leaseName,
          },
        }),
  });

  const timings: Partial<ReconcilerTimings> = {
    inflightPollMs: config.pollIntervalMs,
    ...(config.pushPollMs === undefined ? {} : { pushPollMs: config.pushPollMs }),
    resyncPeriodMs: config.resyncPeriodMs,
    ...options.reconciler,
  };
  const agentDeployments = await setUpAgentDeployments(manager, {
    kube,
    logger,
    registry,
    recorder,
    objects,
    secrets,
    secretValues,
    namespaces: config.namespaces,
    connections: connections.registry,
    connectionWatches: connections.userWatches,
    loadConnectionKey: connections.loadKeySecretOf,
    controlPlane,
    concurrency: config.concurrency,
    timings,
    allowInsecure: config.allowInsecure === true,
    allowPrivateNetworks: addressPolicy.allowPrivateNetworks,
    adoptionNamespaces: config.adoptionNamespaces,
    orphanRecords: { namespace: config.leaderElectionNamespace, name: `${config.leaderElectionId}-orphans` },
  });
  const deletions = setUpDeletions(manager, {
    kube,
    logger,
    registry,
    recorder,
    config: {
      ...config,
      ...(shard.labelSelector === undefined ? {} : { labelSelector: shard.labelSelector }),
    },
    connections: connections.registry,
    defaultBudget: budget,
    mayCall: holdsLease,
    loadConnectionKey: connections.loadKeySecretOf,
    agentDeployments: objects,
  });
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
        const role = shard.name === undefined ? health.role : `${health.role}, shard ${shard.name}`;
        return {
          ok: health.ready,
          reason: health.ready ? `ok (${role})` : health.problems.join('; '),
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
      ...(shard.name === undefined
        ? {}
        : { shard: shard.name, selector: shard.labelSelector, lease: shard.leaseName }),
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
        await agentDeployments.close();
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

/** Where the default connection's platform data API is: the emulator serves both APIs on one URL. */
function defaultPlatformApiUrl(config: OperatorConfig): string {
  return (config.controlPlaneUrl ?? PLATFORM_API_URLS[config.region]).replace(/\/+$/, '');
}

function kubeConfigSource(config: OperatorConfig) {
  if (config.kubeconfig) return { kind: 'file', path: config.kubeconfig } as const;
  if (process.env.KUBERNETES_SERVICE_HOST) return { kind: 'in-cluster' } as const;
  return { kind: 'default' } as const;
}
