// The heap settle: full collections only when a large share of the old space is free committed memory,
// spaced out, stopped once the slack is small, at most one settle per cooldown, and nothing
// after stop.
import { describe, expect, it } from 'vitest';
import { HeapSettler, type OldSpace } from '../../src/runtime/heap-settle.js';
import { FakeClock } from './support/fake-clock.js';

const MiB = 2 ** 20;

/** An old space that each collection compacts by `perCollection` MiB, down to what is used. */
function fragmentedHeap(committedMiB: number, usedMiB: number, perCollection: number) {
  const space = { committedBytes: committedMiB * MiB, usedBytes: usedMiB * MiB };
  const gives = { perCollection };
  let collections = 0;
  return {
    space,
    gives,
    collections: () => collections,
    collect: () => {
      collections += 1;
      space.committedBytes = Math.max(space.usedBytes, space.committedBytes - gives.perCollection * MiB);
    },
    oldSpace: (): OldSpace => ({ ...space }),
  };
}

function settler(heap: ReturnType<typeof fragmentedHeap>, clock: FakeClock) {
  const settles: Array<{ before: OldSpace; after: OldSpace; passes: number }> = [];
  const instance = new HeapSettler({
    collect: heap.collect,
    oldSpace: heap.oldSpace,
    clock,
    checkEveryMs: 10_000,
    passGapMs: 1_000,
    cooldownMs: 60_000,
    onSettled: (settle) => settles.push(settle),
  });
  return { instance, settles };
}

describe('HeapSettler', () => {
  it('compacts a fragmented old space, one collection per gap, until the slack is small', async () => {
    const clock = new FakeClock();
    const heap = fragmentedHeap(250, 85, 60);
    const { instance, settles } = settler(heap, clock);
    instance.start();
    await clock.advance(9_999);
    expect(heap.collections()).toBe(0);
    await clock.advance(1);
    expect(heap.collections()).toBe(1);
    await clock.advance(1_000);
    expect(heap.collections()).toBe(2);
    // 250 -> 190 -> 130 -> 85: the third leaves nothing to give back, so there is no fourth.
    await clock.advance(5_000);
    expect(heap.collections()).toBe(3);
    expect(settles).toEqual([
      {
        before: { committedBytes: 250 * MiB, usedBytes: 85 * MiB },
        after: { committedBytes: 85 * MiB, usedBytes: 85 * MiB },
        passes: 3,
      },
    ]);
    instance.stop();
  });

  it('leaves a heap alone whose slack is small, or only a small share of what it committed', async () => {
    const clock = new FakeClock();
    for (const [committed, used] of [
      [100, 85], // 15 MiB free: under the minimum
      [400, 350], // 50 MiB free, but an eighth of it
    ] as const) {
      const heap = fragmentedHeap(committed, used, 50);
      const { instance } = settler(heap, clock);
      instance.start();
      await clock.advance(120_000);
      expect(heap.collections()).toBe(0);
      instance.stop();
    }
  });

  it('stops when a collection gives back little', async () => {
    const clock = new FakeClock();
    const heap = fragmentedHeap(200, 60, 3);
    const { instance, settles } = settler(heap, clock);
    instance.start();
    await clock.advance(20_000);
    expect(heap.collections()).toBe(1);
    expect(settles.map((settle) => settle.passes)).toEqual([1]);
    instance.stop();
  });

  it('settles again only after the cooldown', async () => {
    const clock = new FakeClock();
    const heap = fragmentedHeap(1_000, 100, 10);
    const { instance, settles } = settler(heap, clock);
    instance.start();
    // At most eight collections a settle, a second apart.
    await clock.advance(10_000 + 7_000);
    expect(heap.collections()).toBe(8);
    // Settled at 10 s: the checks at 27 ... 67 s are within the cooldown, the one at 77 s is not.
    await clock.advance(59_000);
    expect(heap.collections()).toBe(8);
    await clock.advance(1_000 + 7_000);
    expect(heap.collections()).toBe(16);
    expect(settles.map((settle) => settle.passes)).toEqual([8, 8]);
    instance.stop();
  });

  it('runs nothing once stopped, not even a pass already scheduled', async () => {
    const clock = new FakeClock();
    const heap = fragmentedHeap(1_000, 100, 10);
    const { instance } = settler(heap, clock);
    instance.start();
    await clock.advance(10_000);
    expect(heap.collections()).toBe(1);
    instance.stop();
    await clock.advance(600_000);
    expect(heap.collections()).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('settles a heap of 81 MiB used and 100 MiB committed (the spread at 10,000 objects)', async () => {
    // A fifth of the old space free: left alone by the old thresholds (32 MiB and a quarter),
    // which let a settled operator keep anywhere from 88 to 117 MiB committed.
    const clock = new FakeClock();
    const heap = fragmentedHeap(100, 81, 10);
    const { instance } = settler(heap, clock);
    instance.start();
    await clock.advance(10_000);
    expect(heap.collections()).toBe(1);
    instance.stop();
  });

  it('backs off after settles that give nothing back, and comes back to the cooldown after one that does', async () => {
    const clock = new FakeClock();
    const heap = fragmentedHeap(200, 100, 0);
    const { instance, settles } = settler(heap, clock);
    instance.start();
    // Checks every 10 s; the first settle at 10 s gives nothing back: the next waits 120 s
    // instead of 60, the one after that 240.
    await clock.advance(10_000);
    expect(heap.collections()).toBe(1);
    await clock.advance(119_999);
    expect(heap.collections()).toBe(1);
    await clock.advance(1);
    expect(heap.collections()).toBe(2);
    await clock.advance(239_999);
    expect(heap.collections()).toBe(2);
    // The settle at 370 s gives back (200 -> 150 -> 100 in two passes): 60 s again after it.
    heap.gives.perCollection = 50;
    await clock.advance(1);
    await clock.advance(1_000);
    expect(heap.collections()).toBe(4);
    heap.space.committedBytes = 200 * MiB;
    // Checks at 381, 391, ... s: the first 60 s after the settle began is at 431 s.
    await clock.advance(59_999);
    expect(heap.collections()).toBe(4);
    await clock.advance(1);
    expect(heap.collections()).toBe(5);
    expect(settles.map((settle) => settle.passes)).toEqual([1, 1, 2]);
    instance.stop();
  });
});
