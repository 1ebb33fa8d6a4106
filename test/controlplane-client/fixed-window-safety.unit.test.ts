// The property the buckets exist for: whatever the phase of the server's fixed windows, no
// window receives more than `count` requests, even from a client that sends the instant it may.
import { describe, expect, it } from 'vitest';
import { AdaptiveBucket, DEFAULT_ADAPTATION } from '../../src/controlplane/budget/adaptive-bucket.js';
import {
  DEFAULT_SAFETY_MARGIN,
  fixedWindowSafeShape,
} from '../../src/controlplane/budget/fixed-window-shape.js';
import type { RateLimit } from '../../src/controlplane/budget/rate-table.js';
import { seededRandom } from './support/fake-clock.js';

/** Start times of a greedy caller that sends whenever the bucket allows, for `durationMs`. */
function greedyStarts(limit: RateLimit, durationMs: number): number[] {
  const bucket = new AdaptiveBucket(limit, DEFAULT_SAFETY_MARGIN, DEFAULT_ADAPTATION, () => 0.5, 0);
  const starts: number[] = [];
  let now = 0;
  while (now < durationMs) {
    const wait = bucket.waitMs(now);
    if (wait > 0) {
      now += wait;
      continue;
    }
    bucket.take(now);
    starts.push(now);
  }
  return starts;
}

/** The most requests any server window [phase + kW, phase + (k+1)W) receives. */
function busiestWindow(arrivals: readonly number[], windowMs: number, phaseMs: number): number {
  const perWindow = new Map<number, number>();
  for (const at of arrivals) {
    const index = Math.floor((at - phaseMs) / windowMs);
    perWindow.set(index, (perWindow.get(index) ?? 0) + 1);
  }
  return Math.max(0, ...perWindow.values());
}

describe('fixed-window-safe bucket', () => {
  const random = seededRandom(42);
  const limits: RateLimit[] = [
    { count: 1, windowSeconds: 10 },
    { count: 2, windowSeconds: 1 },
    { count: 15, windowSeconds: 10 },
    { count: 20, windowSeconds: 1 },
    { count: 200, windowSeconds: 2 },
    { count: 1000, windowSeconds: 10 },
  ];

  it.each(limits)(
    'never puts more than $count requests into one $windowSeconds s window, at any phase',
    (limit) => {
      const windowMs = limit.windowSeconds * 1000;
      const starts = greedyStarts(limit, windowMs * 12);
      for (let trial = 0; trial < 200; trial += 1) {
        const phase = random() * windowMs;
        expect(busiestWindow(starts, windowMs, phase)).toBeLessThanOrEqual(limit.count);
      }
    },
  );

  it('stays within the limit when network delays vary by less than the margin', () => {
    const limit = { count: 20, windowSeconds: 1 };
    const jitterMs = DEFAULT_SAFETY_MARGIN.minMs * 0.9;
    const arrivals = greedyStarts(limit, 20_000).map((start) => start + 5 + random() * jitterMs);
    for (let trial = 0; trial < 200; trial += 1) {
      expect(busiestWindow(arrivals, 1000, random() * 1000)).toBeLessThanOrEqual(limit.count);
    }
  });

  it('keeps at least 97% of its rate for a caller that comes back up to 100 ms late at 1000 per 10 s', () => {
    // The operator's reconciles do: one refused a token comes back at its place in the line
    // through the work queue, behind whatever else the workers are doing. Refill that arrives
    // while the bucket is full is lost for good.
    const limit = { count: 1000, windowSeconds: 10 };
    const bucket = new AdaptiveBucket(limit, DEFAULT_SAFETY_MARGIN, DEFAULT_ADAPTATION, () => 0.5, 0);
    const lateness = seededRandom(7);
    const durationMs = 60_000;
    let sent = 0;
    let now = 0;
    while (now < durationMs) {
      while (bucket.waitMs(now) === 0) {
        bucket.take(now);
        sent += 1;
      }
      now += bucket.waitMs(now) + lateness() * 100;
    }
    const shape = fixedWindowSafeShape(limit);
    expect(sent / (shape.refillPerMs * durationMs)).toBeGreaterThanOrEqual(0.97);
  });

  it('the naive bucket (capacity C, refill C per W) would break the limit: the property test has teeth', () => {
    // Capacity C lets C go at the end of one window and C more right after the boundary.
    const count = 20;
    const windowMs = 1000;
    const starts: number[] = [];
    for (let i = 0; i < count; i += 1) starts.push(999);
    for (let i = 0; i < count; i += 1) starts.push(1000 + i * (windowMs / count));
    const worst = Math.max(...Array.from({ length: 100 }, (_, k) => busiestWindow(starts, windowMs, k * 10)));
    expect(worst).toBeGreaterThan(count);
  });

  it('keeps the long-run rate at >= 95% of the allowed rate for 200 per 2 s', () => {
    const limit = { count: 200, windowSeconds: 2 };
    const starts = greedyStarts(limit, 60_000);
    const allowed = (limit.count / (limit.windowSeconds * 1000)) * 60_000;
    expect(starts.length / allowed).toBeGreaterThanOrEqual(0.95);
  });

  it('uses a capacity of one and a refill of count / (window + margin) for slow rates', () => {
    // A token every 204 ms: the slack (1% of the span, 102 ms) holds less than one.
    const shape = fixedWindowSafeShape({ count: 50, windowSeconds: 10 });
    expect(shape.capacity).toBe(1);
    expect(shape.spanMs).toBe(10_200);
    expect(shape.refillPerMs).toBeCloseTo(50 / 10_200, 12);
  });

  it('absorbs lateness with a larger capacity at fast rates, paying 1% of the rate for it', () => {
    const shape = fixedWindowSafeShape({ count: 1000, windowSeconds: 10 }); // a token every 10.2 ms
    // 102 ms of slack (1% of the 10.2 s span) hold 10 tokens more.
    expect(shape.capacity).toBe(11);
    expect(shape.refillPerMs).toBeCloseTo((1000 - 11 + 1) / 10_200, 12);
  });

  it('gives a short window at least 25 ms of slack (timers), whatever 1% of it is', () => {
    const shape = fixedWindowSafeShape({ count: 200, windowSeconds: 2 }); // span 2,040 ms, a token every 10.2 ms
    expect(shape.capacity).toBe(3);
    expect(shape.refillPerMs).toBeCloseTo((200 - 3 + 1) / 2_040, 12);
  });
});
