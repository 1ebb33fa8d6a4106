// On V8 12 the settle sees the heap's sampled peak as committed and its present size as used:
// what a burst grew and gave back (into V8's page pool) reads as slack until a collection.
import { describe, expect, it } from 'vitest';
import { PooledHeap } from '../../src/operator/pooled-heap.js';

const MiB = 2 ** 20;

describe('PooledHeap', () => {
  it('reads the pages a burst gave back as slack, and none once a collection released them', () => {
    let physical = 60 * MiB;
    const heap = new PooledHeap(() => physical);
    expect(heap.footprint()).toEqual({ committedBytes: 60 * MiB, usedBytes: 60 * MiB });
    physical = 220 * MiB; // the burst
    heap.footprint();
    physical = 106 * MiB; // settled: the heap shrank, its pages went to the pool
    expect(heap.footprint()).toEqual({ committedBytes: 220 * MiB, usedBytes: 106 * MiB });
    physical = 98 * MiB;
    heap.collected();
    expect(heap.footprint()).toEqual({ committedBytes: 98 * MiB, usedBytes: 98 * MiB });
  });

  it('keeps a settled heap that swings by a few MiB between collections under any slack worth settling', () => {
    const swings = [106, 112, 104, 110, 103, 109];
    let index = 0;
    const heap = new PooledHeap(() => (swings[index] ?? 0) * MiB);
    let largest = 0;
    for (index = 0; index < swings.length; index += 1) {
      const { committedBytes, usedBytes } = heap.footprint();
      largest = Math.max(largest, committedBytes - usedBytes);
    }
    expect(largest).toBe(9 * MiB);
  });
});
