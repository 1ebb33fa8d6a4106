// The deletion controllers (TraceDeletion, later ExampleDeletion): their caches, status writes,
// events, and a platform data client per connection on the connection's own rate budget, so
// that a bulk deletion queues behind the deployments' calls of the same key. Their CRDs may
// come later: until then their caches are empty (an answer, not an error) and looked for again.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { GROUP, VERSION } from '../../api/agentdeployment/names.js';
import {
  EXAMPLE_DELETION,
  TRACE_DELETION,
  type ExampleDeletionObject,
  type TraceDeletionObject,
} from '../../api/deletion/index.js';
import { resolveObjectConnection, type ConnectionUser } from '../../connections/agentdeployment-connection.js';
import type { ConnectionRegistry } from '../../connections/registry.js';
import type { RateBudget } from '../../controlplane/budget/index.js';
import { PlatformDataClient } from '../../platformdata/index.js';
import type { DeletionTimings, PlatformAccess } from './ports.js';
import { ExampleDeletionReconciler } from '../exampledeletion/reconciler.js';
import { TraceDeletionReconciler } from '../tracedeletion/reconciler.js';
import { systemClock } from '../../runtime/clock.js';
import { Controller, type Reconcile } from '../../runtime/controller/controller.js';
import type { EventRecorder } from '../../runtime/events/recorder.js';
import type { KubeClient } from '../../runtime/kube/client.js';
import { KubeApiError } from '../../runtime/kube/errors.js';
import { objectKey, type KubeObject } from '../../runtime/kube/objects.js';
import type { ResourceType } from '../../runtime/kube/resource.js';
import { Informer } from '../../runtime/manager/informer.js';
import { watchOf, type Manager } from '../../runtime/manager/manager.js';
import { defaultControllerRateLimiter } from '../../runtime/workqueue/rate-limiter.js';
import type { OperatorConfig } from '../../operator/config.js';
import { MAY_BE_ABSENT } from '../connection/setup.js';
import { CachedObjectPort } from '../../runtime/reconcile/object-port.js';
import { bindDeletionPhaseMetric } from '../../observability/deletion-metrics.js';
import { PlatformDataClients } from './platform-data-clients.js';

export const TRACE_DELETION_CONTROLLER = 'tracedeletion';
export const TRACE_DELETIONS: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: TRACE_DELETION.plural,
};
export const EXAMPLE_DELETION_CONTROLLER = 'exampledeletion';
export const EXAMPLE_DELETIONS: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: EXAMPLE_DELETION.plural,
};
const CONFIG_MAPS: ResourceType = { group: '', version: 'v1', plural: 'configmaps' };
/** Failed submissions and checks back off from 5 s to 10 min. */
const FAILURE_BACKOFF = { baseDelayMs: 5_000, maxDelayMs: 10 * 60_000 };

type TraceDeletionKubeObject = KubeObject & TraceDeletionObject;
type ExampleDeletionKubeObject = KubeObject & ExampleDeletionObject;

export interface DeletionsOptions {
  kube: KubeClient;
  logger: Logger;
  registry: Registry;
  recorder: EventRecorder;
  config: OperatorConfig;
  connections: ConnectionRegistry;
  /** The default connection's budget: deletions on the operator's own key spend it too. */
  defaultBudget: RateBudget;
  timings?: Partial<DeletionTimings>;
}

export interface Deletions {
  /** Call before stopping the manager: submissions end after their batch in flight. */
  beginStop(): void;
  close(): Promise<void>;
}

/**
 * Adds the deletion controllers to `manager`. Their CRDs may come later: until then their
 * caches are empty (and hold nothing back), and they are looked for again.
 */
export function setUpDeletions(manager: Manager, options: DeletionsOptions): Deletions {
  const { kube, logger, config } = options;
  const stopping = new AbortController();

  const defaultClient = new PlatformDataClient({
    ...(config.controlPlaneUrl === undefined ? {} : { baseUrl: config.controlPlaneUrl }),
    region: config.region,
    credentials: { apiKey: config.apiKey, ...(config.tenantId ? { tenantId: config.tenantId } : {}) },
    budget: options.defaultBudget,
    logger: logger.child({ component: 'platform-data-client' }),
  });
  const namedClients = new PlatformDataClients(logger);
  const platformFor = (object: ConnectionUser): PlatformAccess => {
    const resolution = resolveObjectConnection(options.connections, object, { forDataDeletion: true });
    if (!resolution.ok) return resolution;
    // The connection's owner decides who may delete workspace data with its key; a refused
    // namespace is told why before any call is made.
    if (resolution.dataDeletionRefusal !== undefined) {
      return { ok: false, reason: 'DataDeletionNotAllowed', message: resolution.dataDeletionRefusal };
    }
    const { platform } = resolution;
    if (platform !== undefined) {
      return {
        ok: true,
        client: namedClients.clientFor({ ...resolution, platform }),
        label: resolution.label,
      };
    }
    return { ok: true, client: defaultClient, label: resolution.label };
  };
  const controllerOf = (name: string, reconcile: Reconcile) =>
    new Controller({
      name,
      maxConcurrentReconciles: config.concurrency,
      registry: options.registry,
      logger,
      rateLimiter: () => defaultControllerRateLimiter(systemClock, FAILURE_BACKOFF),
      // A throw is the controller's to catch: it counts and backs off as for a returned Error.
      reconcile,
    });

  {
    const traceDeletions = Informer.forResource<TraceDeletionKubeObject>(kube, {
      type: TRACE_DELETIONS,
      namespaces: config.namespaces,
      logger: logger.child({ informer: TRACE_DELETION.plural }),
      mayBeAbsent: MAY_BE_ABSENT,
    });
    bindDeletionPhaseMetric(options.registry, 'TraceDeletion', () => traceDeletions.store.list());
    const reconciler = new TraceDeletionReconciler({
      kube: new CachedObjectPort({
        client: kube,
        type: TRACE_DELETIONS,
        store: traceDeletions.store,
        recorder: options.recorder,
        logger,
      }),
      platformFor,
      configMapValue: (namespace, name, key, signal) => configMapValue(kube, namespace, name, key, signal),
      clock: systemClock,
      stopping: stopping.signal,
      timings: {
        ...(config.deletionVerifyIntervalMs === undefined
          ? {}
          : { verifyIntervalMs: config.deletionVerifyIntervalMs }),
        ...(config.deletionVerifyDeadlineMs === undefined
          ? {}
          : { verifyDeadlineMs: config.deletionVerifyDeadlineMs }),
        ...options.timings,
      },
      logger: logger.child({ controller: TRACE_DELETION_CONTROLLER }),
    });
    manager.addController(
      controllerOf(TRACE_DELETION_CONTROLLER, (key, signal) => reconciler.reconcile(key, signal)),
      [watchOf(traceDeletions, (object) => [objectKey(object)], specOrDeletionChanged)],
    );
  }
  {
    const exampleDeletions = Informer.forResource<ExampleDeletionKubeObject>(kube, {
      type: EXAMPLE_DELETIONS,
      namespaces: config.namespaces,
      logger: logger.child({ informer: EXAMPLE_DELETION.plural }),
      mayBeAbsent: MAY_BE_ABSENT,
    });
    bindDeletionPhaseMetric(options.registry, 'ExampleDeletion', () => exampleDeletions.store.list());
    const reconciler = new ExampleDeletionReconciler({
      kube: new CachedObjectPort({
        client: kube,
        type: EXAMPLE_DELETIONS,
        store: exampleDeletions.store,
        recorder: options.recorder,
        logger,
      }),
      platformFor,
      clock: systemClock,
      stopping: stopping.signal,
      ...(options.timings === undefined ? {} : { timings: options.timings }),
      logger: logger.child({ controller: EXAMPLE_DELETION_CONTROLLER }),
    });
    manager.addController(
      controllerOf(EXAMPLE_DELETION_CONTROLLER, (key, signal) => reconciler.reconcile(key, signal)),
      [watchOf(exampleDeletions, (object) => [objectKey(object)], specOrDeletionChanged)],
    );
  }
  return {
    beginStop: () => stopping.abort(),
    close: async () => {
      await namedClients.close();
      await defaultClient.close();
    },
  };
}

/** Status writes of the controller itself wake nothing: only a new object or a deletion matters. */
function specOrDeletionChanged(old: KubeObject, current: KubeObject): boolean {
  return (
    old.metadata.generation !== current.metadata.generation ||
    old.metadata.deletionTimestamp !== current.metadata.deletionTimestamp
  );
}

async function configMapValue(
  kube: KubeClient,
  namespace: string,
  name: string,
  key: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  try {
    const configMap = await kube.get<KubeObject & { data?: Record<string, string> }>(
      CONFIG_MAPS,
      namespace,
      name,
      signal,
    );
    return configMap.data?.[key];
  } catch (error) {
    if (error instanceof KubeApiError && error.statusCode === 404) return undefined;
    throw error;
  }
}
