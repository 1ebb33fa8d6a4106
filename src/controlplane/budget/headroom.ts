// How much of a request's budget is spare, now and how soon: for work that should spend only
// what the interactive work leaves (the fleet poller's early lists, revision polls, tracing
// project lookups). A bucket in a server-imposed hold has nothing spare until the hold ends.
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
 * Milliseconds until every bucket `request` draws from holds `share` of its capacity, if nobody
 * spends meanwhile (0: they do now). A lower bound, since others keep spending: callers look
 * again after it rather than trusting it.
 */
export function msUntilHeadroom(budget: RateBudget, request: BudgetRequest, share: number): number {
  let waitMs = 0;
  for (const report of budget.report(request)) {
    const wanted = share * report.capacity;
    const tokensAtHoldEnd = report.blockedForMs > 0 ? 0 : report.tokens;
    const missing = Math.max(0, wanted - tokensAtHoldEnd);
    const refillMs = missing === 0 ? 0 : (missing / Math.max(report.refillPerSecond, 1e-6)) * 1000;
    waitMs = Math.max(waitMs, report.blockedForMs + refillMs);
  }
  return Math.ceil(waitMs);
}
