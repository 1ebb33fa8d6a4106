import { describe, expect, it } from 'vitest';
import { RateBudget, type BudgetRequest } from '../../src/controlplane/budget/rate-budget.js';
import { FakeClock } from './support/fake-clock.js';

const request: BudgetRequest = { method: 'GET', path: '/v2/listeners', credentialFingerprint: 'fp' };

function budgetOf(count: number, windowSeconds: number, clock: FakeClock, random = () => 0.5) {
  return new RateBudget({ overrides: { default: { count, windowSeconds } }, clock, random });
}

describe('rate budget', () => {
  it('reserve() is non-blocking: it grants a token or says how long to wait', () => {
    const clock = new FakeClock();
    const budget = budgetOf(10, 1, clock); // span 1025 ms, 10 tokens per span
    expect(budget.reserve(request)).toEqual({ ok: true });
    const refused = budget.reserve(request);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.waitMs).toBeCloseTo(102.5, 6);
    clock.advance(103);
    expect(budget.reserve(request)).toEqual({ ok: true });
  });

  it('acquire() serves waiters first come, first served, as tokens refill', async () => {
    const clock = new FakeClock();
    const budget = budgetOf(10, 1, clock);
    const order: number[] = [];
    const waits = [1, 2, 3].map((n) => budget.acquire(request).then((waited) => order.push(n) && waited));
    await Promise.resolve();
    clock.advance(0);
    await Promise.resolve();
    expect(order).toEqual([1]);
    clock.advance(103);
    await Promise.resolve();
    expect(order).toEqual([1, 2]);
    clock.advance(103);
    await Promise.all(waits);
    expect(order).toEqual([1, 2, 3]);
  });

  it('acquire() rejects when its signal aborts, and the queue moves on', async () => {
    const clock = new FakeClock();
    const budget = budgetOf(10, 1, clock);
    await budget.acquire(request);
    const controller = new AbortController();
    const aborted = budget.acquire(request, controller.signal);
    const next = budget.acquire(request);
    controller.abort();
    await expect(aborted).rejects.toThrow(/aborted/);
    clock.advance(103);
    await expect(next).resolves.toBeGreaterThan(0);
  });

  it('on a 429 with Retry-After blocks the bucket until then', () => {
    const clock = new FakeClock();
    const budget = budgetOf(1000, 10, clock);
    const startedAt = clock.now();
    budget.reserve(request);
    budget.throttled(request, startedAt, 3000);
    expect(budget.peekWaitMs(request)).toBe(3000);
    clock.advance(2999);
    expect(budget.reserve(request).ok).toBe(false);
    clock.advance(1);
    expect(budget.reserve(request).ok).toBe(true);
  });

  it('on a 429 without Retry-After backs off with jitter, halves the rate, and recovers additively', () => {
    const clock = new FakeClock();
    const budget = budgetOf(100, 10, clock, () => 0); // equal jitter with random 0: half the ceiling
    budget.throttled(request, clock.now(), undefined);
    const [bucket] = budget.report(request);
    expect(bucket?.blockedForMs).toBe(250); // base 500 ms, equal jitter
    expect(bucket?.factor).toBeCloseTo(0.5, 9);
    // A second 429 for a request started BEFORE the tightening carries no news.
    budget.throttled(request, clock.now() - 1, undefined);
    expect(budget.report(request)[0]?.factor).toBeCloseTo(0.5, 9);
    // Recovery: +5% of the configured rate per protected span (10.2 s).
    clock.advance(10_200);
    expect(budget.report(request)[0]?.factor).toBeCloseTo(0.55, 9);
    clock.advance(10_200 * 20);
    expect(budget.report(request)[0]?.factor).toBe(1);
  });

  it('doubles the backoff on consecutive 429s and caps it', () => {
    const clock = new FakeClock();
    const budget = new RateBudget({
      overrides: { default: { count: 100, windowSeconds: 10 } },
      adaptation: { backoffBaseMs: 1000, backoffMaxMs: 4000 },
      clock,
      random: () => 0.999999,
    });
    const blocks: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      budget.throttled(request, clock.now(), undefined);
      blocks.push(Math.round(budget.report(request)[0]?.blockedForMs ?? 0));
      clock.advance(blocks[blocks.length - 1] ?? 0);
    }
    expect(blocks).toEqual([1000, 2000, 4000, 4000]);
  });

  it('never tightens below the minimum factor', () => {
    const clock = new FakeClock();
    const budget = budgetOf(100, 10, clock);
    for (let i = 0; i < 20; i += 1) {
      budget.throttled(request, clock.now(), 0);
      clock.advance(1);
    }
    expect(budget.report(request)[0]?.factor).toBeGreaterThanOrEqual(0.05);
  });

  it('resyncs from rate-limit headers: remaining 0 with a reset blocks; a lower limit is adopted, a higher one ignored', () => {
    const clock = new FakeClock();
    const budget = budgetOf(100, 10, clock);
    budget.answered(request, { remaining: 0, resetMs: 4000 });
    expect(budget.peekWaitMs(request)).toBe(4000);
    budget.answered(request, { limit: 50, windowSeconds: 5 });
    expect(budget.report(request)[0]?.limit).toEqual({ count: 50, windowSeconds: 5 });
    budget.answered(request, { limit: 500 });
    expect(budget.report(request)[0]?.limit).toEqual({ count: 50, windowSeconds: 5 });
  });

  it('close() rejects pending waiters', async () => {
    const clock = new FakeClock();
    const budget = budgetOf(1, 60, clock);
    await budget.acquire(request);
    const pending = budget.acquire(request);
    budget.close();
    await expect(pending).rejects.toThrow(/closed/);
  });
});

describe('rate budget: bulk held for throttled interactive calls', () => {
  const bulk: BudgetRequest = { ...request, priority: 'bulk' };

  it('stays back while held, but takes a token a full bucket of several would throw away', () => {
    const clock = new FakeClock();
    const budget = budgetOf(200, 2, clock); // capacity 3, about 97 per s
    while (budget.reserve(request).ok);
    budget.holdBulkFor(1_000);
    clock.advance(15); // one token back: held, and not full
    expect(budget.reserve(bulk).ok).toBe(false);
    clock.advance(30); // full (3 tokens): the reconciles it was held for are late
    expect(budget.reserve(bulk)).toEqual({ ok: true });
    // Two remain for them.
    expect(budget.reserve(request)).toEqual({ ok: true });
    expect(budget.reserve(request)).toEqual({ ok: true });
    budget.close();
  });

  it('never takes the single token of a one-token bucket while held', () => {
    const clock = new FakeClock();
    const budget = budgetOf(1, 10, clock); // capacity 1
    expect(budget.reserve(request).ok).toBe(true);
    budget.holdBulkFor(60_000);
    clock.advance(20_000); // full again
    expect(budget.reserve(bulk).ok).toBe(false);
    expect(budget.reserve(request)).toEqual({ ok: true });
    budget.close();
  });
});
