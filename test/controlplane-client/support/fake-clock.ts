// Virtual time for the budget and the client. `advance(ms)` steps time and fires due timers in
// order; `autoAdvance` makes every timer fire as soon as the process is otherwise idle, so code
// that sleeps (backoff, budget waits) runs instantly while still seeing the time it waited.
import type { Clock } from '../../../src/controlplane/budget/clock.js';

interface Timer {
  id: number;
  at: number;
  callback: () => void;
}

export class FakeClock implements Clock {
  private current: number;
  private timers: Timer[] = [];
  private nextId = 1;
  private autoScheduled = false;

  constructor(
    start = 1_000_000,
    private readonly autoAdvance = false,
  ) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, delayMs: number): unknown {
    const timer = { id: this.nextId++, at: this.current + Math.max(0, delayMs), callback };
    this.timers.push(timer);
    this.timers.sort((a, b) => a.at - b.at || a.id - b.id);
    if (this.autoAdvance) this.scheduleAuto();
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((timer) => timer.id !== handle);
  }

  /** Steps time by `ms`, firing every timer that falls due on the way, in order. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const next = this.timers[0];
      if (next === undefined || next.at > target) break;
      this.timers.shift();
      this.current = Math.max(this.current, next.at);
      next.callback();
    }
    this.current = target;
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  private scheduleAuto(): void {
    if (this.autoScheduled) return;
    this.autoScheduled = true;
    // setImmediate runs after pending promise reactions, so the code under test reaches its
    // next await before time moves.
    setImmediate(() => {
      this.autoScheduled = false;
      const next = this.timers.shift();
      if (next === undefined) return;
      this.current = Math.max(this.current, next.at);
      next.callback();
      if (this.timers.length > 0) this.scheduleAuto();
    });
  }
}

/** A deterministic random source (mulberry32), so that "random" phases are reproducible. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
