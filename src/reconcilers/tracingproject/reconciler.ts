// Records an AgentDeployment's tracing project in status.tracingProject: looked up by the
// deployment's name through the platform data API with the object's own connection, once, and
// again only while it is missing (decide.ts). A project not there yet is looked for again
// later; a connection that cannot be used yet, too. The write is a merge patch of that one
// field, so the AgentDeployment controller's own status writes keep it.
//
// Nothing waits for the project id, so a lookup spends only spare budget: while the buckets of
// its key are under `spareShare` full, or an interactive request (a rollout's create) waited on
// them in the last `spareQuietMs`, it waits, and goes ahead anyway once it has waited
// `maxDeferMs` (a key that is never spare still gets its projects recorded). The keys waiting
// on one connection form a line: its head (the key that has waited longest) looks again at the
// budget's pace, the others back off; a lookup that goes on spare budget wakes the head, so the
// line moves as fast as the budget stays spare, with one key looking while it is not.
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

/** Keys waiting for spare budget on one connection -> when each was first deferred; oldest first. */
type Line = Map<string, number>;

/**
 * The head's shortest wait: it follows the budget closely (a tiny bucket is spare again within
 * tens of ms), so that the line moves on as soon as it can; one key of a connection does this.
 */
const HEAD_MIN_DEFER_MS = 100;
/** The shortest wait of a deferred lookup: a bucket's refill estimate can be a few ms. */
const MIN_DEFER_MS = 1_000;

export class TracingProjectReconciler {
  /** Per connection (its label), the keys waiting for spare budget and since when, oldest first. */
  private readonly lines = new Map<string, Line>();
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
    const line = this.lineOf(access.label, key);
    const msUntilSpare = access.client.msUntilSessionLookupSpare(
      this.options.spareShare,
      this.options.spareQuietMs,
    );
    const deferMs = this.deferral(line, key, msUntilSpare);
    if (deferMs > 0) return requeueAfter(deferMs);
    const found = await access.client.findSessionByName(step.name, { signal, priority: 'bulk' });
    if (!found.ok)
      return failed(new Error(`looking up tracing project ${step.name}: ${found.error.message}`));
    // The budget was spare: the turn passes to the key that has waited longest (not after a
    // failure, which would run the line through a failing API at full speed).
    if (msUntilSpare === 0) this.wakeHead(line);
    if (found.value === undefined) return requeueAfter(this.options.recheckMs);
    const tracingProject = { name: step.name, id: found.value.id };
    const written = await this.options.kube.patchStatus(object, { ...object.status, tracingProject }, signal);
    if (written.ok || written.reason === 'Gone') return awaitChange;
    return written.reason === 'Conflict' ? requeueNow : failed(new Error(`write failed: ${written.message}`));
  }

  /** The line of the connection `label`; `key` leaves any other line (its object changed connection). */
  private lineOf(label: string, key: string): Line {
    for (const [other, line] of this.lines) if (other !== label) this.leave(line, key);
    let line = this.lines.get(label);
    if (line === undefined) {
      line = new Map();
      this.lines.set(label, line);
    }
    return line;
  }

  private wakeHead(line: Line): void {
    const head = line.keys().next();
    if (!head.done) this.options.wake?.(head.value);
  }

  /** Takes `key` out of `line`; if it was the head, the next key takes over the looking. */
  private leave(line: Line, key: string): void {
    const wasHead = line.keys().next().value === key;
    if (!line.delete(key)) return;
    if (wasHead) this.wakeHead(line);
  }

  /** Nothing to look up for this key (any more): it no longer waits for spare budget. */
  private done(key: string): ReconcileResult {
    for (const [label, line] of this.lines) {
      this.leave(line, key);
      if (line.size === 0) this.lines.delete(label);
    }
    return awaitChange;
  }

  /** How long this key's lookup waits for spare budget (0: it goes now). */
  private deferral(line: Line, key: string, msUntilSpare: number): number {
    const now = this.now();
    const since = line.get(key);
    if (msUntilSpare === 0 || (since !== undefined && now - since >= this.options.maxDeferMs)) {
      line.delete(key);
      return 0;
    }
    if (since === undefined) line.set(key, now);
    // Only the head of the line (the key that has waited longest) looks at the budget's pace,
    // for every key of its connection; the others back off, waiting as long as they have
    // waited so far, and are woken in turn once the budget is spare. Thousands of objects
    // needing a lookup at once (a new operator over a fleet) otherwise each came back every
    // second or so to learn that the budget was still not spare: measured at 2,000 objects,
    // 20,000 such passes in 40 s, CPU taken from the adoption they waited behind.
    const isHead = line.keys().next().value === key;
    const waitedMs = isHead || since === undefined ? 0 : now - since;
    const shortest = isHead ? HEAD_MIN_DEFER_MS : MIN_DEFER_MS;
    const waitMs = Math.min(this.options.recheckMs, Math.max(shortest, msUntilSpare, waitedMs));
    // Spread, so that the keys deferred together do not all look at the same instant.
    return Math.round(waitMs * (1 + 0.5 * this.random()));
  }
}
