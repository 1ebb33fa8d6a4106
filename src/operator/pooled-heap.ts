// What the heap settle looks at on V8 12 and later (Node 22, the image's Node), where the old
// space alone hides most of what a burst leaves resident. V8 12 keeps the pages its
// collections free in a pool, resident, until its memory reducer runs, and that waits for an
// idle process: measured at 10,000 settled objects, 361-371 MB resident for 106 MB of heap,
// with an old space too little fragmented to settle. What the heap held at its highest beyond
// what it holds now went to that pool (a lower bound: the peak is sampled at each check), so
// the settle sees the peak as committed and the present size as used: a burst that grew the
// heap and left it a quarter smaller, and at least the settle's minimum smaller, is settled
// with V8's last-resort collection, which releases the pool. Ordinary swings of a settled heap
// (a few MiB between collections) stay under that minimum. After each collection the peak is
// what remains.
import type { OldSpace } from '../runtime/heap-settle.js';

export class PooledHeap {
  private peakBytes = 0;

  /** `physicalBytes`: the resident size of V8's heap, all spaces. */
  constructor(private readonly physicalBytes: () => number) {}

  /** The heap's sampled peak as committed, its present size as used. */
  footprint(): OldSpace {
    const now = this.physicalBytes();
    this.peakBytes = Math.max(this.peakBytes, now);
    return { committedBytes: this.peakBytes, usedBytes: now };
  }

  /** After a collection released the pool: the peak starts again from what is left. */
  collected(): void {
    this.peakBytes = this.physicalBytes();
  }
}
