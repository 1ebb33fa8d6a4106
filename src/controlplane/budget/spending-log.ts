// How many tokens one bucket handed out lately, in coarse time slots. A 429 says the key's
// window is spent; what the bucket itself spent in that window tells it which part of the key
// it actually got, and so how far to step back (see adaptive-bucket.ts). Slots rather than
// one timestamp per request: the memory is fixed whatever the limit (10,000 per minute for
// some rows), and a slot is a small fraction of the window, which is all the estimate needs.

const SLOTS = 64;

export class SpendingLog {
  private readonly slotMs: number;
  /** counts[i] holds the slot whose index modulo SLOTS is i; indexes[i] says which one. */
  private readonly counts = new Array<number>(SLOTS).fill(0);
  private readonly indexes = new Array<number>(SLOTS).fill(Number.NEGATIVE_INFINITY);
  private first = Number.POSITIVE_INFINITY;

  /** Remembers at least `horizonMs` of spending. */
  constructor(horizonMs: number) {
    this.slotMs = Math.max(1, horizonMs / (SLOTS - 1));
  }

  record(at: number): void {
    const index = Math.floor(at / this.slotMs);
    const i = ((index % SLOTS) + SLOTS) % SLOTS;
    if (this.indexes[i] !== index) {
      this.indexes[i] = index;
      this.counts[i] = 0;
    }
    this.counts[i] = (this.counts[i] ?? 0) + 1;
    this.first = Math.min(this.first, at);
  }

  /** When the first token was recorded (+Infinity: none yet). */
  get firstAt(): number {
    return this.first;
  }

  /**
   * Tokens taken at or after `since` (up to `now`), counting only whole slots that start at or
   * after `since`: an undercount by at most one slot, so the share it measures errs low and
   * the step back it implies errs large, never the other way.
   */
  countSince(since: number, now: number): number {
    const from = Math.ceil(since / this.slotMs);
    const to = Math.floor(now / this.slotMs);
    if (to - from >= SLOTS) return Number.NaN; // older than remembered: no answer
    let total = 0;
    for (let i = 0; i < SLOTS; i += 1) {
      const index = this.indexes[i] ?? Number.NEGATIVE_INFINITY;
      if (index >= from && index <= to) total += this.counts[i] ?? 0;
    }
    return total;
  }
}
