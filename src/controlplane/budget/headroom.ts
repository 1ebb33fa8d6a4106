// How much of a request's budget is spare, now and how soon: for work that should spend only
// what the interactive work leaves (the fleet poller's early lists, revision polls, tracing
// project lookups). A bucket in a server-imposed hold has nothing spare until the hold ends.
//
// A bucket's fill alone says little when it holds a few tokens (1000 calls per 10 s is a bucket
// of 3, paced evenly): it refills between two creates of a rollout whose workers are busy
// elsewhere for a moment. So work that can wait also keeps off a bucket for `quietMs` after an
// interactive request last found it empty.
import type { BudgetRequest, RateBudget } from './rate-budget.js';

/** Share of the budget free right now, 0..1: the emptiest bucket `request` draws from. */
export function budgetHeadroom(budget: RateBudget, request: BudgetRequest): number {
  let share = 1;
  for (const report of budget.report(request)) {
    const free = report.blockedForMs > 0 ? 0 : report.tokens / Math.max(report.capacity, 1);
    share = Math.min(share, free);
  }
  return share;
}

/**
 * Milliseconds until every bucket `request` draws from holds `share` of its capacity and has
 * had no interactive request waiting for `quietMs`, if nobody spends meanwhile (0: now). A
 * lower bound, since others keep spending: callers look again after it rather than trust it.
 */
export function msUntilSpare(budget: RateBudget, request: BudgetRequest, share: number, quietMs = 0): number {
  let waitMs = 0;
  for (const report of budget.report(request)) {
    const wanted = share * report.capacity;
    const tokensAtHoldEnd = report.blockedForMs > 0 ? 0 : report.tokens;
    const missing = Math.max(0, wanted - tokensAtHoldEnd);
    const refillMs = missing === 0 ? 0 : (missing / Math.max(report.refillPerSecond, 1e-6)) * 1000;
    const quietLeftMs = Math.max(0, quietMs - report.msSinceInteractiveWait);
    waitMs = Math.max(waitMs, report.blockedForMs + refillMs, quietLeftMs);
  }
  return Math.ceil(waitMs);
}
