// How much of a request's budget is spare, now and how soon: for work that should spend only
// what the interactive work leaves (the fleet poller's early lists, revision polls, tracing
// project lookups). A bucket in a server-imposed hold has nothing spare until the hold ends.
//
// A bucket's fill alone says little when it holds a few tokens (1000 calls per 10 s is a bucket
// of 3, paced evenly): it refills between two creates of a rollout whose workers are busy
// elsewhere for a moment. So work that can wait also keeps off a bucket for `quietMs` after an
// interactive request last found it empty.
import type { BudgetRequest, RateBudget } from './rate-budget.js';

/**
 * How long optional work keeps off a bucket after an interactive request last found it empty:
 * a rollout waiting for tokens takes them as they come, a few hundred ms apart at the slowest
 * published limits, and its creates go no faster for a list or a lookup taking one meanwhile.
 */
export const OPTIONAL_WORK_QUIET_MS = 2_000;

/**
 * The same for the fleet poller's early looks at new revisions, which also need nobody in the
 * key's throttle line: at the published limits a rollout's creates find the bucket empty
 * every few tens of milliseconds, so half a second without one means its creates are out (the
 * last of a wave, whose builds the early looks are for) or its workers are stalled.
 */
export const EARLY_LOOK_QUIET_MS = 500;

/**
 * Share of the budget free right now, 0..1: the emptiest bucket `request` draws from. With
 * `quietMs`, a bucket an interactive request found empty less than `quietMs` ago has none
 * free, whatever it refilled to since (see the file's comment).
 */
export function budgetHeadroom(budget: RateBudget, request: BudgetRequest, quietMs = 0): number {
  let share = 1;
  for (const report of budget.report(request)) {
    const spent = report.blockedForMs > 0 || report.msSinceInteractiveWait < quietMs;
    const free = spent ? 0 : report.tokens / Math.max(report.capacity, 1);
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
