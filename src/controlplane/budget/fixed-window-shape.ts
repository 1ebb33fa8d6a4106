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
// Why not always B = 1: a waiter is woken by a timer, and timers fire late (and in whole
// milliseconds). A bucket of capacity 1 is full the moment a token is ready, so every
// millisecond of lateness is refill thrown away, a share of the rate that grows as the time
// per token shrinks (docs/benchmarks.md has the measured figure). A capacity of
// 1 + (tokens refilled in TIMER_SLACK_MS) absorbs that lateness for a rate cost of (B - 1) / C; for small rates (a token every 40 ms or more) the
// slack rounds to nothing and B stays 1.
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

/** Lateness of the timers that wake waiters that the bucket should absorb without losing refill. */
export const TIMER_SLACK_MS = 25;

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
  const capacity = 1 + Math.floor((limit.count / spanMs) * TIMER_SLACK_MS);
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
