// Records an AgentDeployment's tracing project in status.tracingProject: looked up by the
// deployment's name through the platform data API with the object's own connection, once, and
// again only while it is missing (decide.ts). A project not there yet is looked for again
// later; a connection that cannot be used yet, too. The write is a merge patch of that one
// field, so the AgentDeployment controller's own status writes keep it.
//
// Nothing waits for the project id, so a lookup spends only spare budget: while the buckets of
// its key are under `spareShare` full, or an interactive request (a rollout's create) waited on
// them in the last `spareQuietMs`, it comes back when they could be spare (or, the longer it has
// waited, later: it backs off), and goes ahead anyway once it has waited `maxDeferMs` (a key
// that is never spare still gets its projects recorded). A lookup that found the budget spare
// wakes the key that has waited longest, so that the waiting keys follow one another as long as
// the budget stays spare instead of each sleeping out its back-off.
// Measured: at 1,000 objects created at once the lookups took half a call per deployment from
// the rollout (docs/benchmarks.md).
import type { Logger } from 'pino';
import {
  awaitChange,
  failed,
  requeueAfter,
  requeueNow,
  type ReconcileResult,
} from '../../runtime/reconcile/result.js';
import type { ObjectPort } from '../../runtime/reconcile/object-port.js';
import type { AgentDeploymentObject } from '../agentdeployment/kube-port.js';
import type { SessionAccess } from '../deletion/ports.js';
import { decideTracingProject } from './decide.js';

export interface TracingProjectReconcilerOptions {
  objects: { get(key: string): AgentDeploymentObject | undefined };
  kube: Pick<ObjectPort<AgentDeploymentObject>, 'patchStatus'>;
  sessionsFor(object: AgentDeploymentObject): SessionAccess;
  /** How soon a project not found (or a connection not usable) is looked for again. */
  recheckMs: number;
  /** A lookup goes ahead when its key's buckets are at least this full (0..1)... */
  spareShare: number;
  /** ...and no interactive request has waited on them for this long... */
  spareQuietMs: number;
  /** ...or when it has waited this long for that. */
  maxDeferMs: number;
  logger: Logger;
  /** Runs the key's pass soon (the controller's enqueue): a waiting lookup's turn has come. */
  wake?: (key: string) => void;
  now?: () => number;
  random?: () => number;
}

/** The shortest wait of a deferred lookup: a bucket's refill estimate can be a few ms. */
const MIN_DEFER_MS = 1_000;

export class TracingProjectReconciler {
  /** key -> when its lookup was first deferred for want of spare budget. */
  private readonly deferredSince = new Map<string, number>();
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(private readonly options: TracingProjectReconcilerOptions) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const object = this.options.objects.get(key);
    if (object === undefined) return this.done(key);
    const step = decideTracingProject(object);
    if (step.kind === 'none') return this.done(key);
    const access = this.options.sessionsFor(object);
    if (!access.ok) {
      this.options.logger.debug(
        { key, reason: access.reason },
        'tracing project lookup waits for the connection',
      );
      return requeueAfter(this.options.recheckMs);
    }
    const msUntilSpare = access.client.msUntilSessionLookupSpare(
      this.options.spareShare,
      this.options.spareQuietMs,
    );
    const deferMs = this.deferral(key, msUntilSpare);
    if (deferMs > 0) return requeueAfter(deferMs);
    const found = await access.client.findSessionByName(step.name, { signal, priority: 'bulk' });
    if (!found.ok)
      return failed(new Error(`looking up tracing project ${step.name}: ${found.error.message}`));
    // The budget was spare: the key that has waited longest (backing off, it may be asleep for
    // half a minute) looks now, and hands the turn on in the same way if it is still spare.
    if (msUntilSpare === 0) this.wakeLongestWaiting();
    if (found.value === undefined) return requeueAfter(this.options.recheckMs);
    const tracingProject = { name: step.name, id: found.value.id };
    const written = await this.options.kube.patchStatus(object, { ...object.status, tracingProject }, signal);
    if (written.ok || written.reason === 'Gone') return awaitChange;
    return written.reason === 'Conflict' ? requeueNow : failed(new Error(`write failed: ${written.message}`));
  }

  private wakeLongestWaiting(): void {
    // Insertion order: the first key is the one deferred earliest.
    const next = this.deferredSince.keys().next();
    if (!next.done) this.options.wake?.(next.value);
  }

  /** Nothing to look up for this key (any more): it no longer waits for spare budget. */
  private done(key: string): ReconcileResult {
    this.deferredSince.delete(key);
    return awaitChange;
  }

  /** How long this key's lookup waits for spare budget (0: it goes now). */
  private deferral(key: string, msUntilSpare: number): number {
    const now = this.now();
    const since = this.deferredSince.get(key);
    if (msUntilSpare === 0 || (since !== undefined && now - since >= this.options.maxDeferMs)) {
      this.deferredSince.delete(key);
      return 0;
    }
    if (since === undefined) this.deferredSince.set(key, now);
    // Backs off: the longer a key has waited for spare budget, the longer it waits before it
    // looks again (as long as it has waited so far). Thousands of objects needing a lookup at
    // once (a new operator over a fleet) otherwise each came back every second or so to learn
    // that the budget was still not spare: measured at 2,000 objects, 20,000 such passes in
    // 40 s, CPU taken from the adoption they waited behind.
    const waitedMs = since === undefined ? 0 : now - since;
    const waitMs = Math.min(this.options.recheckMs, Math.max(MIN_DEFER_MS, msUntilSpare, waitedMs));
    // Spread, so that the keys deferred together do not all look at the same instant.
    return Math.round(waitMs * (1 + 0.5 * this.random()));
  }
}
