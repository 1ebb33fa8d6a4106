// The work queue's waiting keys come out in due order whatever order they went in.
import { describe, expect, it } from 'vitest';
import { DueHeap } from '../../src/runtime/workqueue/due-heap.js';

describe('DueHeap', () => {
  it('pops entries earliest first, ties included', () => {
    const heap = new DueHeap();
    const times = Array.from({ length: 500 }, (_, i) => (i * 104_729) % 997);
    times.forEach((at, i) => heap.push({ at, key: `k${i}` }));
    expect(heap.size).toBe(500);
    const popped: number[] = [];
    for (let entry = heap.pop(); entry !== undefined; entry = heap.pop()) popped.push(entry.at);
    expect(popped).toEqual([...times].sort((a, b) => a - b));
    expect(heap.size).toBe(0);
    expect(heap.peek()).toBeUndefined();
  });

  it('keeps its order when pushes and pops interleave', () => {
    const heap = new DueHeap();
    [5, 1, 4].forEach((at) => heap.push({ at, key: String(at) }));
    expect(heap.pop()?.at).toBe(1);
    [0, 3].forEach((at) => heap.push({ at, key: String(at) }));
    expect([heap.pop(), heap.pop(), heap.pop(), heap.pop()].map((entry) => entry?.at)).toEqual([0, 3, 4, 5]);
  });
});
