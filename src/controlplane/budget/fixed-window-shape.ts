// The shape (capacity and refill rate) of a token bucket that can never put more than
// `count` requests into any fixed window of the server.
//
// Why the obvious bucket is wrong: a bucket of capacity C refilling C per window W lets a
// client send C requests at the end of one server window and, the bucket having refilled,
// C more at the start of the next: 2C inside one window-length span. The server counts in
// fixed windows whose phase we do not know, so the bucket must keep EVERY span of length W
// (at any phase) at or below C.
//
// The bound: a bucket of capacity B and refill rate r, holding at most B at the start of a
// half-open span [a, a+L), can admit at most B + (whole tokens refilled inside the span).
// The refill inside the span is strictly less than r*L, so with r*L = C - B + 1 at most
// C - B whole tokens arrive, and the span admits at most C. The capacity does not raise the
// long-run rate (that is r), it trades it away: B = 1 gives the highest rate, C / L.
//
// Why not always B = 1: whoever takes the tokens comes late. A waiter is woken by a timer,
// which fires late and in whole milliseconds; the operator's reconciles, refused a token, come
// back at their place in the line through the work queue, behind whatever else its workers are
// doing, tens of milliseconds late whenever the process is busy. A bucket of capacity B is full
// (B - 1) tokens after the token a caller waits for, and refill that arrives while it is full is
// thrown away for good: at capacity 1, every millisecond of lateness. A capacity of
// 1 + (tokens refilled in the slack) absorbs that much lateness for a rate cost of (B - 1) / C,
// which is the slack's share of the span. The slack is the larger of 25 ms (timers) and 1% of
// the span (about 100 ms for a 10 s window): no bucket pays more than 1% of its rate for it,
// beyond what 25 ms costs a short window. Measured (docs/benchmarks.md): at 1000 per 10 s, a
// capacity of 3 (25 ms) let the operator create at 92.5 a second while its line was busy, against
// 94.1 with 11 (102 ms; medians of six runs each).
//
// The margin: requests are counted when they ARRIVE, not when they leave; two requests that
// leave L apart may arrive closer together when their network delays differ, and the
// server's clock may run a little faster than ours. So L = W + margin, with the margin
// covering delay jitter and skew (default: the larger of 25 ms and 2% of the window).
// The price is the achieved/allowed ratio W / (W + margin): 0.98 for 200 per 2 s.
import type { RateLimit } from './rate-table.js';

export interface SafetyMargin {
  /** Never less than this many milliseconds. */
  minMs: number;
  /** Fraction of the window added as margin. */
  fraction: number;
}

/** How late a caller may come for its token without refill being lost: the larger of the two. */
export const LATENESS_SLACK: { minMs: number; fractionOfSpan: number } = { minMs: 25, fractionOfSpan: 0.01 };

export const DEFAULT_SAFETY_MARGIN: SafetyMargin = { minMs: 25, fraction: 0.02 };

export interface BucketShape {
  capacity: number;
  /** Tokens per millisecond. */
  refillPerMs: number;
  /** The span length L the bucket protects, in milliseconds (window + margin). */
  spanMs: number;
}

export function fixedWindowSafeShape(
  limit: RateLimit,
  margin: SafetyMargin = DEFAULT_SAFETY_MARGIN,
): BucketShape {
  const windowMs = limit.windowSeconds * 1000;
  const marginMs = Math.max(margin.minMs, margin.fraction * windowMs, 1);
  const spanMs = windowMs + marginMs;
  const slackMs = Math.max(LATENESS_SLACK.minMs, LATENESS_SLACK.fractionOfSpan * spanMs);
  const capacity = 1 + Math.floor((limit.count / spanMs) * slackMs);
  return { capacity, refillPerMs: (limit.count - capacity + 1) / spanMs, spanMs };
}

export function validateRateLimit(limit: RateLimit, field: string): void {
  if (!Number.isInteger(limit.count) || limit.count < 1) {
    throw new Error(`${field}.count must be a positive integer (got ${String(limit.count)})`);
  }
  if (!Number.isFinite(limit.windowSeconds) || limit.windowSeconds <= 0) {
    throw new Error(`${field}.windowSeconds must be a positive number (got ${String(limit.windowSeconds)})`);
  }
}
