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
// on one connection form a line, in the order they came: its head (the key that has waited
// longest) looks again at the budget's pace, the others sleep until they are woken, with the
// longest deferral as their only timer. A key keeps its place until its lookup is answered.
// An answer to a lookup that went on spare budget wakes the two keys at the front (the line's
// lookups in flight can double while the budget stays spare); an answer to the head's wakes
// the next head; a failed lookup wakes nobody, so a failing API is probed by the head alone, at
// the controller's backoff. Measured: at 1,000 objects created at once the lookups took half a
// call per deployment from the rollout; at 10,000 adopted at once, ... (docs/benchmarks.md).
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
/**
 * Keys woken by the answer to a lookup that went on spare budget. Two: while the budget stays
 * spare the lookups in flight double with each round trip (a line moved one key at a time
 * would go at the API's latency, not at the budget's pace); once it is not spare, the woken
 * keys behind the head go back to sleep, one pass each.
 */
const WOKEN_PER_SPARE_ANSWER = 2;
/** A sleeping key's safety timer comes a little after its longest deferral, spread by up to this share. */
const SLEEP_SPREAD = 0.1;

export class TracingProjectReconciler {
  /** Per connection (its label), the keys waiting for spare budget and since when, oldest first. */
  private readonly lines = new Map<string, Line>();
  /** Keys whose lookup is on its way: a wake would only run their pass again. */
  private readonly inFlight = new Set<string>();
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
    this.inFlight.add(key);
    let found: Awaited<ReturnType<typeof access.client.findSessionByName>>;
    try {
      found = await access.client.findSessionByName(step.name, { signal, priority: 'bulk' });
    } finally {
      this.inFlight.delete(key);
    }
    // A failure keeps the key's place and wakes nobody: waking the line would run it through
    // a failing API at full speed.
    if (!found.ok)
      return failed(new Error(`looking up tracing project ${step.name}: ${found.error.message}`));
    this.answered(line, key, msUntilSpare === 0);
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

  /** Wakes the line's head, unless its lookup is on its way (its answer wakes the line). */
  private wakeHead(line: Line): void {
    const head = line.keys().next();
    if (!head.done && !this.inFlight.has(head.value)) this.options.wake?.(head.value);
  }

  /**
   * `key`'s lookup was answered: it leaves the line. On spare budget the keys at the front are
   * woken (those not already looking); otherwise, if it was the head, the next head takes over.
   */
  private answered(line: Line, key: string, spare: boolean): void {
    if (!spare) {
      this.leave(line, key);
      return;
    }
    line.delete(key);
    let woken = 0;
    for (const next of line.keys()) {
      if (woken === WOKEN_PER_SPARE_ANSWER) break;
      if (this.inFlight.has(next)) continue;
      this.options.wake?.(next);
      woken += 1;
    }
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

  /** How long this key's lookup waits for spare budget (0: it goes now, keeping its place). */
  private deferral(line: Line, key: string, msUntilSpare: number): number {
    const now = this.now();
    let since = line.get(key);
    if (since === undefined) {
      since = now;
      line.set(key, now);
    }
    const waitedMs = now - since;
    if (msUntilSpare === 0 || waitedMs >= this.options.maxDeferMs) return 0;
    // Only the head of the line (the key that has waited longest) looks at the budget's pace,
    // for every key of its connection; the others sleep until an answer wakes them, or until
    // their longest deferral. Thousands of objects needing a lookup at once (a new operator
    // over a fleet) otherwise each came back to learn that the budget was still not spare:
    // measured at 10,000 objects with back-offs of 1 to 30 s, 63,000 such passes in 2.5
    // minutes, CPU taken from the adoption they waited behind.
    if (line.keys().next().value === key) {
      const waitMs = Math.min(this.options.recheckMs, Math.max(HEAD_MIN_DEFER_MS, msUntilSpare));
      // Spread, so that the heads of several connections do not all look at the same instant.
      return Math.round(waitMs * (1 + 0.5 * this.random()));
    }
    const sleepMs = this.options.maxDeferMs - waitedMs;
    return Math.round(sleepMs * (1 + SLEEP_SPREAD * this.random()));
  }
}
