// The spare share of a request's budget and how soon it comes back: what optional work (the
// tracing-project lookups, the fleet poller's early lists) waits on.
import { describe, expect, it } from 'vitest';
import { budgetHeadroom, msUntilSpare } from '../../src/controlplane/budget/headroom.js';
import { RateBudget, type BudgetRequest } from '../../src/controlplane/budget/rate-budget.js';
import { FakeClock } from './support/fake-clock.js';

const request: BudgetRequest = { method: 'GET', path: '/sessions', credentialFingerprint: 'fp' };

/** A budget of 100 calls per 10 s, spent down to `share` of its capacity. */
function spentTo(clock: FakeClock, share: number): RateBudget {
  const budget = new RateBudget({ overrides: { default: { count: 100, windowSeconds: 10 } }, clock });
  while (budgetHeadroom(budget, request) > share) expect(budget.reserve(request)).toEqual({ ok: true });
  return budget;
}

describe('budget headroom', () => {
  it('a full budget is all spare, now', () => {
    const budget = spentTo(new FakeClock(), 1);
    expect(budgetHeadroom(budget, request)).toBe(1);
    expect(msUntilSpare(budget, request, 0.5)).toBe(0);
  });

  it('a drained budget is spare again after the time it says, and not a moment before', () => {
    const clock = new FakeClock();
    const budget = spentTo(clock, 0.1);
    expect(budgetHeadroom(budget, request)).toBeLessThan(0.5);
    const waitMs = msUntilSpare(budget, request, 0.5);
    expect(waitMs).toBeGreaterThan(0);
    clock.advance(waitMs - 50);
    expect(budgetHeadroom(budget, request)).toBeLessThan(0.5);
    expect(msUntilSpare(budget, request, 0.5)).toBeGreaterThan(0);
    clock.advance(50);
    expect(budgetHeadroom(budget, request)).toBeGreaterThanOrEqual(0.5 - 1e-9);
    expect(msUntilSpare(budget, request, 0.5)).toBe(0);
  });

  it('a bucket the server holds after a 429 has nothing spare until the hold ends', () => {
    const clock = new FakeClock();
    const budget = spentTo(clock, 1);
    budget.throttled(request, clock.now(), 3_000);
    expect(budgetHeadroom(budget, request)).toBe(0);
    expect(msUntilSpare(budget, request, 0.5)).toBeGreaterThan(3_000);
  });

  it('keeps optional work off a bucket for the quiet time after an interactive request found it empty', () => {
    const clock = new FakeClock();
    const budget = spentTo(clock, 0);
    expect(budget.reserve(request).ok).toBe(false);
    const bulk = { ...request, priority: 'bulk' as const };
    clock.advance(msUntilSpare(budget, request, 0.5));
    expect(budgetHeadroom(budget, request)).toBeGreaterThanOrEqual(0.5 - 1e-9);
    // Full enough, but the refused create waited less than 2 s ago.
    const since = msUntilSpare(budget, request, 0, 0);
    expect(since).toBe(0);
    const quietLeft = msUntilSpare(budget, request, 0.5, 2_000);
    expect(quietLeft).toBeGreaterThan(0);
    clock.advance(quietLeft);
    expect(msUntilSpare(budget, request, 0.5, 2_000)).toBe(0);
    // A bulk request refused a token is not a rollout waiting: it starts no quiet time.
    const bulkBudget = spentTo(clock, 0);
    expect(bulkBudget.reserve(bulk).ok).toBe(false);
    expect(msUntilSpare(bulkBudget, request, 0, 2_000)).toBe(0);
  });

  it('reads nothing spare for the quiet time after an interactive request found the bucket empty', () => {
    // A key spent as fast as it refills (a rollout waiting for create tokens) holds a token or
    // two between creates: its fill alone reads spare at most moments, and the optional work
    // that trusted it (early lists, revision polls) took the creates' tokens.
    const clock = new FakeClock();
    const budget = spentTo(clock, 0);
    expect(budget.reserve(request).ok).toBe(false);
    clock.advance(msUntilSpare(budget, request, 0.5));
    expect(budgetHeadroom(budget, request)).toBeGreaterThanOrEqual(0.5 - 1e-9);
    expect(budgetHeadroom(budget, request, 2_000)).toBe(0);
    clock.advance(msUntilSpare(budget, request, 0.5, 2_000) - 1);
    expect(budgetHeadroom(budget, request, 2_000)).toBe(0);
    clock.advance(1);
    expect(budgetHeadroom(budget, request, 2_000)).toBeGreaterThanOrEqual(0.5 - 1e-9);
    // A refused bulk request starts no quiet time.
    const bulkBudget = spentTo(clock, 0);
    expect(bulkBudget.reserve({ ...request, priority: 'bulk' }).ok).toBe(false);
    clock.advance(msUntilSpare(bulkBudget, request, 0.5));
    expect(budgetHeadroom(bulkBudget, request, 2_000)).toBeGreaterThanOrEqual(0.5 - 1e-9);
  });

  it('a refused interactive reserve counts as waiting; a refused bulk one does not; neither takes anything', () => {
    const clock = new FakeClock();
    const budget = spentTo(clock, 0);
    const tokens = budget.report(request)[0]?.tokens;
    expect(budget.reserve({ ...request, priority: 'bulk' }).ok).toBe(false);
    expect(msUntilSpare(budget, request, 0, 2_000)).toBe(0);
    expect(budget.reserve(request).ok).toBe(false);
    expect(msUntilSpare(budget, request, 0, 2_000)).toBe(2_000);
    expect(budget.report(request)[0]?.tokens).toBe(tokens);
  });
});
