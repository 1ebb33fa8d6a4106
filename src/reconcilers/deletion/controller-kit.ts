// What the two deletion controllers share in their set-up: the context the process gives
// them, one controller shape (workers, backoff), and the predicate that keeps their own status
// writes from waking them.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { systemClock } from '../../runtime/clock.js';
import { Controller, type Reconcile } from '../../runtime/controller/controller.js';
import type { EventRecorder } from '../../runtime/events/recorder.js';
import type { KubeClient } from '../../runtime/kube/client.js';
import type { KubeObject } from '../../runtime/kube/objects.js';
import type { Manager } from '../../runtime/manager/manager.js';
import { defaultControllerRateLimiter } from '../../runtime/workqueue/rate-limiter.js';
import type { ResourceType } from '../../runtime/kube/resource.js';
import { Informer } from '../../runtime/manager/informer.js';
import { Departures, type DeletionSource } from '../../runtime/manager/departures.js';
import { CachedObjectPort } from '../../runtime/reconcile/object-port.js';
import { bindDeletionPhaseMetric } from '../../observability/deletion-metrics.js';
import { MAY_BE_ABSENT } from '../connection/setup.js';
import type { PlatformAccess, DeletionTimings } from './ports.js';
import type { ConnectionUser } from '../../connections/agentdeployment-connection.js';
import { afterConnectionKey, type LoadConnectionKey } from '../../connections/key-before-pass.js';

/** Failed submissions and checks back off from 5 s to 10 min. */
const FAILURE_BACKOFF = { baseDelayMs: 5_000, maxDelayMs: 10 * 60_000 };

export interface DeletionSetupContext {
  manager: Manager;
  kube: KubeClient;
  logger: Logger;
  registry: Registry;
  recorder: EventRecorder;
  /** Watched namespaces; empty: all. */
  namespaces: string[];
  /** A shard's selector (--shard); absent: every object. */
  labelSelector?: string;
  concurrency: number;
  platformFor(object: ConnectionUser): PlatformAccess;
  /** Reads an object's connection key before its pass (see connections/key-before-pass.ts). */
  loadConnectionKey: LoadConnectionKey;
  /** Aborted when the operator begins to stop: submissions end after their batch in flight. */
  stopping: AbortSignal;
  timings?: Partial<DeletionTimings>;
}

/**
 * A controller of connection users other than AgentDeployments (the deletion kinds, the
 * tracing-project lookups), shaped as the AgentDeployment controller is: each pass reads the
 * key of its object's connection first, and is abandoned when its object leaves `objects`'s
 * cache (deleted, or relabelled to another shard, which now owns it: this shard's pass must not
 * submit another batch or write status after that). Each pass has a signal of its own, so that
 * its waits and calls follow that, not the controller's.
 */
export function deletionController<T extends ConnectionUser & KubeObject>(
  context: Pick<DeletionSetupContext, 'concurrency' | 'registry' | 'logger' | 'loadConnectionKey'>,
  name: string,
  objects: DeletionSource<T> & { store: { get(key: string): T | undefined } },
  reconcile: Reconcile,
): Controller {
  return new Controller({
    name,
    maxConcurrentReconciles: context.concurrency,
    registry: context.registry,
    logger: context.logger,
    rateLimiter: () => defaultControllerRateLimiter(systemClock, FAILURE_BACKOFF),
    // A throw is the controller's to catch: it counts and backs off as a failed pass.
    reconcile: new Departures(objects).around(
      afterConnectionKey(context.loadConnectionKey, (key) => objects.store.get(key), reconcile),
    ),
  });
}

/**
 * A deletion kind's cache (its CRD may come later: until then the cache is empty and looked
 * for again), its phase metric, and the kit's object port over that cache.
 */
export function deletionObjects<T extends KubeObject & { status?: { phase?: string } }>(
  context: DeletionSetupContext,
  kind: 'TraceDeletion' | 'ExampleDeletion',
  type: ResourceType,
): { informer: Informer<T>; port: CachedObjectPort<T> } {
  const informer = Informer.forResource<T>(context.kube, {
    type,
    namespaces: context.namespaces,
    labelSelector: context.labelSelector,
    logger: context.logger.child({ informer: type.plural }),
    mayBeAbsent: MAY_BE_ABSENT,
  });
  bindDeletionPhaseMetric(context.registry, kind, () => informer.store.list());
  const port = new CachedObjectPort<T>({
    client: context.kube,
    type,
    store: informer.store,
    recorder: context.recorder,
    logger: context.logger,
  });
  return { informer, port };
}

/** Status writes of the controller itself wake nothing: only a new object or a deletion matters. */
export function specOrDeletionChanged(old: KubeObject, current: KubeObject): boolean {
  return (
    old.metadata.generation !== current.metadata.generation ||
    old.metadata.deletionTimestamp !== current.metadata.deletionTimestamp
  );
}
