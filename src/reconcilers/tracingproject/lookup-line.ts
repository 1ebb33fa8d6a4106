// The lookups of tracing projects that wait for spare budget, one line per connection, and the
// pump that moves each line. A waiting lookup costs nothing while it waits: its pass returns
// without a requeue, and the line's pump (one timer per connection) watches the budget at its
// own pace and wakes the key that has waited longest when the budget is spare, or when that key
// has waited the longest deferral. The woken key's pass looks at the budget itself and goes or
// waits again; only then does the pump wake the next, so the line takes what is spare one lookup
// at a time, as fast as passes run, and never wakes more keys than the budget can serve.
//
// Why a pump and not the keys themselves: after a new operator adopts 10,000 objects, every one
// needs a lookup on the same key. Keys that each came back to look at the budget (at growing
// intervals, with one head at the budget's pace) made 80,000 passes until the last project was
// recorded; keys asleep until a lookup woke the next went at half the pace, since between two
// lookups a token is spare for ~10 ms and nobody was looking then (docs/benchmarks.md).
import { Backoff } from '../../runtime/backoff.js';
import { systemClock, type Clock, type TimerHandle } from '../../runtime/clock.js';

export interface LookupLineOptions {
  /** A waiting key goes ahead after this long even if the budget was never spare. */
  maxDeferMs: number;
  /** After a failed lookup the line pauses 1 s, doubling per failure in a row up to this. */
  maxFailureBackoffMs: number;
  /** Runs `key`'s pass soon (the controller's enqueue). */
  wake(key: string): void;
  clock?: Clock;
  /** Aborted when the operator stops: every pump's timer is cleared, none is set again. */
  stopping?: AbortSignal;
}

/** Whether a lookup goes now; when it waits, the line's pump wakes it. */
export type Admission = { go: true } | { go: false };

interface Line {
  /** Keys waiting for spare budget -> when each began to wait; Map order: oldest first. */
  readonly waiting: Map<string, number>;
  /** Milliseconds until the connection's budget is spare (0: now), from the latest pass's client. */
  msUntilSpare: () => number;
  /** The key the pump woke and whose pass has not run yet, and when. */
  woken: { key: string; at: number } | undefined;
  /** The pause after each failed lookup in a row: 1 s, doubling up to `maxFailureBackoffMs`. */
  readonly failures: Backoff;
  /** No wake before this (after a failed lookup). */
  pausedUntil: number;
  timer: TimerHandle | undefined;
}

/** The pump's quickest look again: a token of a small bucket is spare again within ~10 ms. */
export const PUMP_MIN_WAIT_MS = 10;
/**
 * A woken key whose pass has not run after this long is taken as lost (its queue stopped, or the
 * controller restarted under a new leader): the pump looks again, waking the head anew.
 */
export const WAKE_TIMEOUT_MS = 1_000;
const FIRST_FAILURE_BACKOFF_MS = 1_000;

export class LookupLines {
  private readonly lines = new Map<string, Line>();
  private readonly clock: Clock;
  private stopped = false;

  constructor(private readonly options: LookupLineOptions) {
    this.clock = options.clock ?? systemClock;
    options.stopping?.addEventListener('abort', () => this.stop(), { once: true });
    if (options.stopping?.aborted === true) this.stop();
  }

  /**
   * `key`'s lookup on connection `label` goes now when the budget is spare or the key has waited
   * the longest deferral; otherwise it joins (or keeps its place in) the line, and the pump will
   * wake it. A key in another connection's line leaves that one (its object changed connection).
   */
  admit(label: string, key: string, msUntilSpare: () => number): Admission {
    this.leaveOthers(label, key);
    const line = this.lineOf(label, msUntilSpare);
    const wasWoken = line.woken?.key === key;
    if (wasWoken) line.woken = undefined;
    const now = this.clock.now();
    const since = line.waiting.get(key);
    const expired = since !== undefined && now - since >= this.options.maxDeferMs;
    if (expired || msUntilSpare() === 0) {
      line.waiting.delete(key);
      // What is left of the spare budget may serve the next in line at once.
      this.pumpSoon(label, line);
      return { go: true };
    }
    if (since === undefined) line.waiting.set(key, now);
    // The pump looks again at the budget's pace (a woken key that found nothing spare hands back
    // a pump that was waiting on it).
    if (wasWoken || line.timer === undefined) this.pump(label);
    return { go: false };
  }

  /** A lookup that went is over: after one the API failed, the line pauses, backing off. */
  finished(label: string, apiFailed: boolean): void {
    const line = this.lines.get(label);
    if (line === undefined) return;
    if (!apiFailed) {
      line.failures.reset();
      line.pausedUntil = 0;
      // Nobody waits and nothing is paused: the line goes (a removed connection leaves none behind).
      if (line.waiting.size === 0) this.drop(label, line);
      return;
    }
    line.pausedUntil = this.clock.now() + line.failures.next();
  }

  /** `key` needs no lookup (any more), or cannot make one now: it waits in no line. */
  leave(key: string): void {
    this.leaveOthers(undefined, key);
  }

  private lineOf(label: string, msUntilSpare: () => number): Line {
    let line = this.lines.get(label);
    if (line === undefined) {
      line = {
        waiting: new Map(),
        msUntilSpare,
        woken: undefined,
        failures: new Backoff({
          initialMs: FIRST_FAILURE_BACKOFF_MS,
          maxMs: this.options.maxFailureBackoffMs,
        }),
        pausedUntil: 0,
        timer: undefined,
      };
      this.lines.set(label, line);
    }
    line.msUntilSpare = msUntilSpare;
    return line;
  }

  private leaveOthers(keep: string | undefined, key: string): void {
    for (const [label, line] of this.lines) {
      if (label === keep) continue;
      const wasHead = line.waiting.keys().next().value === key;
      const wasWoken = line.woken?.key === key;
      if (wasWoken) line.woken = undefined;
      if (!line.waiting.delete(key)) continue;
      if (line.waiting.size === 0) this.drop(label, line);
      else if (wasHead || wasWoken) this.pumpSoon(label, line);
    }
  }

  private drop(label: string, line: Line): void {
    if (line.timer !== undefined) this.clock.clearTimeout(line.timer);
    this.lines.delete(label);
  }

  private pumpSoon(label: string, line: Line): void {
    if (line.waiting.size > 0) this.schedule(label, line, 0);
  }

  private schedule(label: string, line: Line, delayMs: number): void {
    if (this.stopped) return;
    if (line.timer !== undefined) this.clock.clearTimeout(line.timer);
    line.timer = this.clock.setTimeout(() => {
      line.timer = undefined;
      this.pump(label);
    }, delayMs);
  }

  /** One look of `label`'s pump: wake the head, or sleep until it might be woken. */
  private pump(label: string): void {
    const line = this.lines.get(label);
    if (line === undefined || this.stopped) return;
    const head = line.waiting.entries().next();
    if (head.done === true) {
      this.drop(label, line);
      return;
    }
    const now = this.clock.now();
    if (now < line.pausedUntil) return this.schedule(label, line, line.pausedUntil - now);
    if (line.woken !== undefined && now - line.woken.at < WAKE_TIMEOUT_MS)
      return this.schedule(label, line, line.woken.at + WAKE_TIMEOUT_MS - now);
    const [key, since] = head.value;
    const msUntilExpired = since + this.options.maxDeferMs - now;
    const msUntilSpare = line.msUntilSpare();
    if (msUntilSpare === 0 || msUntilExpired <= 0) {
      line.woken = { key, at: now };
      this.options.wake(key);
      // The woken pass normally answers first (admit), which pumps again at once.
      return this.schedule(label, line, WAKE_TIMEOUT_MS);
    }
    this.schedule(label, line, Math.max(PUMP_MIN_WAIT_MS, Math.min(msUntilSpare, msUntilExpired)));
  }

  private stop(): void {
    this.stopped = true;
    for (const line of this.lines.values()) if (line.timer !== undefined) this.clock.clearTimeout(line.timer);
    this.lines.clear();
  }
}
