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
//
// Creates take their places by namespace (flow). One line of fixed places is first come, first
// served: a tenant that keeps creating objects on a shared key keeps the line long, and another
// team's create went to its end, behind all of them. So a namespace's creates are spaced among
// themselves, at the refill rate shared by the namespaces holding places (two namespaces: every
// other token each), and a namespace with no place waiting starts at the budget's next token,
// not behind the others' places. The places it takes make the others' come a token late; those
// wait a moment in place for the next token (at most 3 x 100 ms), or take new places. With one
// namespace the line is what it was: first come, first served.
import { systemClock, type Clock } from '../../runtime/clock.js';

export class ThrottleLine {
  /** The first slot not yet given out (clock ms). */
  private nextFreeAt = 0;
  /** flow → its first slot not yet given out (clock ms), while it holds places. */
  private readonly flowNextAt = new Map<string, number>();

  constructor(
    /** The budget's sustained rate (requests per second); read at each placement. */
    private readonly ratePerSecond: () => number,
    private readonly clock: Pick<Clock, 'now'> = systemClock,
  ) {}

  /**
   * How long a reconcile throttled now, for a budget wait of `budgetWaitMs`, should wait before
   * its retry; with `flow` (a create's namespace), its place among that flow's.
   */
  place(budgetWaitMs: number, flow?: string): number {
    const now = this.clock.now();
    const spacing = 1000 / Math.max(this.ratePerSecond(), 0.001);
    if (flow === undefined) {
      const slot = Math.max(now + budgetWaitMs, this.nextFreeAt);
      this.nextFreeAt = slot + spacing;
      return slot - now;
    }
    let others = 0;
    for (const [other, nextAt] of this.flowNextAt) {
      if (nextAt <= now) this.flowNextAt.delete(other);
      else if (other !== flow) others += 1;
    }
    // Alone, the flow's places follow every place given out (the line as it always was).
    const notBefore = others === 0 ? this.nextFreeAt : (this.flowNextAt.get(flow) ?? 0);
    const slot = Math.max(now + budgetWaitMs, notBefore);
    this.flowNextAt.set(flow, slot + spacing * (others + 1));
    this.nextFreeAt = Math.max(this.nextFreeAt, slot + spacing);
    return slot - now;
  }

  /** How far ahead the line reaches now (0 when nobody waits), for diagnostics and tests. */
  get lengthMs(): number {
    return Math.max(0, this.nextFreeAt - this.clock.now());
  }
}
