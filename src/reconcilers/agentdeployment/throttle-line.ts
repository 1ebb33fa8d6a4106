// The line of reconciles waiting for one budget. A reconcile that finds its budget empty is
// requeued, and the budget alone would tell every one of them the same thing: "a token in
// 50 ms". A thousand objects on a saturated key then all come back together, one wins and the
// rest are throttled again: tens of thousands of reconciles a minute that do nothing but
// burn the CPU the other connections' objects need (measured: 70,000 throttled reconciles
// in one 60 s run of bench/connections/two-regions.ts).
//
// So each throttled reconcile is given its own place instead: the first free slot after the
// budget's wait, slots spaced at the budget's refill rate. They come back one by one, about
// when a token is there for each. No token is reserved: a slot left unused (its object was
// deleted) only leaves a token for the next caller.
import { systemClock, type Clock } from '../../runtime/clock.js';

export class ThrottleLine {
  /** The first slot not yet given out (clock ms). */
  private nextFreeAt = 0;

  constructor(
    /** The budget's sustained rate (requests per second); read at each placement. */
    private readonly ratePerSecond: () => number,
    private readonly clock: Pick<Clock, 'now'> = systemClock,
  ) {}

  /** How long a reconcile throttled now, for a budget wait of `budgetWaitMs`, should wait before its retry. */
  place(budgetWaitMs: number): number {
    const now = this.clock.now();
    const slot = Math.max(now + budgetWaitMs, this.nextFreeAt);
    this.nextFreeAt = slot + 1000 / Math.max(this.ratePerSecond(), 0.001);
    return slot - now;
  }

  /** How far ahead the line reaches now (0 when nobody waits), for diagnostics and tests. */
  get lengthMs(): number {
    return Math.max(0, this.nextFreeAt - this.clock.now());
  }
}
