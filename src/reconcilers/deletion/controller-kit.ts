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
import type { PlatformAccess, DeletionTimings } from './ports.js';
import type { ConnectionUser } from '../../connections/agentdeployment-connection.js';

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
  concurrency: number;
  platformFor(object: ConnectionUser): PlatformAccess;
  /** Aborted when the operator begins to stop: submissions end after their batch in flight. */
  stopping: AbortSignal;
  timings?: Partial<DeletionTimings>;
}

export function deletionController(
  context: DeletionSetupContext,
  name: string,
  reconcile: Reconcile,
): Controller {
  return new Controller({
    name,
    maxConcurrentReconciles: context.concurrency,
    registry: context.registry,
    logger: context.logger,
    rateLimiter: () => defaultControllerRateLimiter(systemClock, FAILURE_BACKOFF),
    // A throw is the controller's to catch: it counts and backs off as a failed pass.
    reconcile,
  });
}

/** Status writes of the controller itself wake nothing: only a new object or a deletion matters. */
export function specOrDeletionChanged(old: KubeObject, current: KubeObject): boolean {
  return (
    old.metadata.generation !== current.metadata.generation ||
    old.metadata.deletionTimestamp !== current.metadata.deletionTimestamp
  );
}
