// A bucket that meets a 429 after spending part of the key learns that part (its share) and
// settles just under it; one that was hardly spending keeps the plain halving.
import { describe, expect, it } from 'vitest';
import { AdaptiveBucket, DEFAULT_ADAPTATION } from '../../src/controlplane/budget/adaptive-bucket.js';
import { DEFAULT_SAFETY_MARGIN } from '../../src/controlplane/budget/fixed-window-shape.js';
import { SpendingLog } from '../../src/controlplane/budget/spending-log.js';

const limit = { count: 100, windowSeconds: 10 }; // span 10.2 s, capacity 1
const SPAN_MS = 10_200;

function bucketAt(now: number): AdaptiveBucket {
  return new AdaptiveBucket(limit, DEFAULT_SAFETY_MARGIN, DEFAULT_ADAPTATION, () => 0.5, now);
}

/** Takes a token as soon as the bucket allows, but at most one per `everyMs`, from `from` to `to`; returns how many. */
function spend(bucket: AdaptiveBucket, from: number, to: number, everyMs: number): number {
  let taken = 0;
  let at = from;
  while (at < to) {
    const wait = bucket.waitMs(at);
    if (wait > 0) {
      at += wait;
      continue;
    }
    bucket.take(at);
    taken += 1;
    at += everyMs;
  }
  return taken;
}

describe('measured share after a 429', () => {
  it('restarts at 85% of the part of the window it spent (Retry-After places the window)', () => {
    const bucket = bucketAt(0);
    // About half the key in the 5 s since the window began (as fast as it may), then the key is spent.
    const spent = spend(bucket, 0, 5_000, 1);
    expect(spent).toBeGreaterThanOrEqual(49);
    bucket.throttled(5_000, 5_000, 5_000);
    expect(bucket.snapshot(5_000).factor).toBeCloseTo((0.85 * spent) / 100, 9);
  });

  it('without Retry-After measures over the last window, which can only overstate its share', () => {
    const bucket = bucketAt(0);
    const spent = spend(bucket, 0, 8_000, 180);
    expect(spent).toBe(45);
    bucket.throttled(8_000, 8_000, undefined);
    expect(bucket.snapshot(8_000).factor).toBeCloseTo((0.85 * spent) / 100, 9);
  });

  it('stays below its share for about four spans, then probes past it, slowly at first', () => {
    const bucket = bucketAt(0);
    spend(bucket, 0, 5_000, 1);
    bucket.throttled(5_000, 5_000, 5_000);
    const factorAfter = (spans: number): number => bucket.snapshot(5_000 + spans * SPAN_MS).factor;
    expect(factorAfter(1)).toBeGreaterThan(0.46); // most of the step back regained at once
    expect(factorAfter(3.5)).toBeLessThanOrEqual(0.5);
    expect(factorAfter(6)).toBeLessThan(0.52);
    expect(factorAfter(8)).toBeGreaterThan(0.53);
    expect(factorAfter(12)).toBe(1);
  });

  it('never sets the rate above the one it had, even when it measured more', () => {
    const bucket = bucketAt(0);
    spend(bucket, 0, 6_000, 1);
    bucket.throttled(6_000, 6_000, 4_000); // first 429: factor 0.85 * 0.5 (see the next test)
    const lowered = bucket.snapshot(6_000).factor;
    // A 429 right after, for a request sent after the tightening, measures 60 again.
    bucket.throttled(6_001, 6_001, 3_999);
    expect(bucket.snapshot(6_001).factor).toBeCloseTo(lowered * 0.85, 4);
  });

  it('takes no more than half the key as its share: with someone else on it, more is not fair', () => {
    const bucket = bucketAt(0);
    expect(spend(bucket, 0, 7_000, 1)).toBeGreaterThan(60); // 0.6 of the key and more
    bucket.throttled(7_000, 7_000, 3_000);
    expect(bucket.snapshot(7_000).factor).toBeCloseTo(0.85 * 0.5, 9);
  });

  it('halves, as before, when it was hardly spending (demand, not the key, kept it low)', () => {
    const bucket = bucketAt(0);
    spend(bucket, 0, 5_000, 1_000); // 5 tokens where 50 were allowed
    bucket.throttled(5_000, 5_000, 5_000);
    expect(bucket.snapshot(5_000).factor).toBeCloseTo(0.5, 9);
  });

  it('halves when it spent for only a moment of the window (it just started)', () => {
    const bucket = bucketAt(0);
    spend(bucket, 9_000, 9_500, 1);
    bucket.throttled(9_500, 9_500, 500);
    expect(bucket.snapshot(9_500).factor).toBeCloseTo(0.5, 9);
  });
});

describe('spending log', () => {
  it('counts what was recorded since a time, undercounting by at most one slot', () => {
    const log = new SpendingLog(6_300); // 100 ms slots
    for (let at = 0; at < 5_000; at += 10) log.record(at);
    expect(log.countSince(2_000, 5_000)).toBe(300);
    expect(log.countSince(2_050, 5_000)).toBe(290); // the partial slot is left out
    expect(log.firstAt).toBe(0);
  });

  it('forgets what is older than its horizon and says so rather than guess', () => {
    const log = new SpendingLog(6_300);
    for (let at = 0; at < 20_000; at += 10) log.record(at);
    expect(log.countSince(14_000, 20_000)).toBe(600);
    expect(log.countSince(0, 20_000)).toBeNaN();
  });
});
