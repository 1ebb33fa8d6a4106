// One token bucket for one (row, identity): fixed-window-safe (see fixed-window-shape.ts), and
// adaptive. A 429 means our picture of the limit is wrong (another process shares the key, or
// the server's limit is lower than configured): the bucket then blocks for a while, lowers its
// rate and climbs back, never above the configured rate (the scheme TCP uses for the same
// problem: find the rate a shared resource allows).
//
// How far it lowers depends on what it knows. The server publishes no remaining count, but a
// 429 says the key's window is spent, and the bucket knows what it spent itself in that window
// (spending-log.ts): that is the part of the key it actually got, its share. Knowing it, the
// bucket restarts a step below that share and approaches it along a plateau (recovery-curve.ts),
// so that installations sharing a key settle just under their shares after ONE 429 each. Not
// knowing it (it was hardly spending, or only for a moment), it halves and climbs additively
// (AIMD).
import { fixedWindowSafeShape, type BucketShape, type SafetyMargin } from './fixed-window-shape.js';
import type { RandomSource } from './clock.js';
import type { RateLimit } from './rate-table.js';
import { additiveRecovery, plateauRecovery, recoveredFactor, type RecoveryCurve } from './recovery-curve.js';
import { SpendingLog } from './spending-log.js';

export interface AdaptationPolicy {
  /** Multiplies the rate on a 429 (0 < x < 1). */
  decreaseFactor: number;
  /** The rate never drops below this fraction of the configured rate. */
  minFactor: number;
  /** Fraction of the configured rate regained per protected span without a 429. */
  recoveryPerSpan: number;
  /** Block after a 429 without Retry-After: base, doubling per consecutive 429, capped. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** After a 429 whose share was measured, the rate restarts at this fraction of the share (0 < x < 1). */
  shareStepBack: number;
  /**
   * A measured share above this is not taken as the bucket's own: the 429 says someone else is
   * on the key (or the server allows less than configured), and then more than half is not a
   * fair part of it. The larger of two installations steps back to half, the other keeps what
   * it had, so an uneven split (one started later, or stalled) closes within a 429 or two.
   */
  maxMeasuredShare: number;
  /** Steepness of the plateau curve (factor per span cubed): sets how long the bucket stays near its share. */
  plateauCubic: number;
  /** A share counts as measured only if the bucket spent over at least this fraction of the window... */
  minMeasuredWindowFraction: number;
  /** ...and spent at least this fraction of what its own rate allowed (otherwise demand, not the key, limited it). */
  minBusyFraction: number;
}

export const DEFAULT_ADAPTATION: AdaptationPolicy = {
  decreaseFactor: 0.5,
  minFactor: 0.05,
  recoveryPerSpan: 0.05,
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
  // 0.85: two installations at 85% of their halves use 85% of the key until the plateau brings
  // them back. 0.0012: from 85% of a half share the curve is back at the share after about 4
  // spans and 1% past it (where the bucket's own 2% margin is used up) after about 6, so a
  // 429 about every minute; from a half share to the whole key after about 11 spans, when the
  // other installation has stopped.
  shareStepBack: 0.85,
  maxMeasuredShare: 0.5,
  plateauCubic: 0.0012,
  minMeasuredWindowFraction: 0.25,
  minBusyFraction: 0.5,
};

/** What rate-limit response headers said (all optional; see rate-limit-headers.ts). */
export interface ServerRateState {
  limit?: number;
  remaining?: number;
  resetMs?: number;
  windowSeconds?: number;
}

export interface BucketSnapshot {
  limit: RateLimit;
  factor: number;
  tokens: number;
  /** Most tokens the bucket holds; tokens / capacity is the share free right now. */
  capacity: number;
  /** Tokens it adds per second now: below limit.count / window by the safety margin, and lowered after 429s. */
  refillPerSecond: number;
  blockedForMs: number;
  /** Milliseconds since an interactive request last found no token here (Infinity: never). */
  msSinceInteractiveWait: number;
}

const TOKEN_EPSILON = 1e-9;

export class AdaptiveBucket {
  private limit: RateLimit;
  private shape: BucketShape;
  private tokens: number;
  private updatedAt: number;
  private recovery: RecoveryCurve;
  private readonly spending: SpendingLog;
  private blockedUntil = Number.NEGATIVE_INFINITY;
  private consecutiveThrottles = 0;
  private interactiveWaitedAt = Number.NEGATIVE_INFINITY;
  private lastTightenedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly configured: RateLimit,
    private readonly margin: SafetyMargin,
    private readonly policy: AdaptationPolicy,
    private readonly random: RandomSource,
    now: number,
  ) {
    this.limit = configured;
    this.shape = fixedWindowSafeShape(configured, margin);
    this.tokens = this.shape.capacity;
    this.updatedAt = now;
    this.recovery = additiveRecovery(1, now, policy.recoveryPerSpan);
    this.spending = new SpendingLog(this.shape.spanMs);
  }

  /**
   * Milliseconds until this bucket would admit a request (0: now). `keepTokens` asks for that
   * many tokens to remain after it (bulk work leaves headroom for interactive calls); it is
   * capped at capacity - 1, so a bucket of capacity 1 admits bulk work on its single token.
   */
  waitMs(now: number, keepTokens = 0): number {
    this.refill(now);
    const blocked = Math.max(0, this.blockedUntil - now);
    const keep = Math.min(keepTokens, this.shape.capacity - 1);
    // Below a nanotoken the shortfall is floating-point noise, not a reason to wait.
    const missing = 1 + keep - this.tokens;
    const forToken = missing <= TOKEN_EPSILON ? 0 : missing / (this.shape.refillPerMs * this.factorAt(now));
    return Math.max(blocked, forToken);
  }

  /**
   * Milliseconds until the bucket is full (0: full now): from then on, refill is thrown away.
   * Infinite for a bucket of one token, whose single token is never spare.
   */
  msUntilFull(now: number): number {
    if (this.shape.capacity <= 1) return Number.POSITIVE_INFINITY;
    this.refill(now);
    const missing = this.shape.capacity - this.tokens;
    return missing <= TOKEN_EPSILON ? 0 : missing / (this.shape.refillPerMs * this.factorAt(now));
  }

  /** Consumes one token; callers check waitMs(now) === 0 first. */
  take(now: number): void {
    this.refill(now);
    this.tokens = Math.max(0, this.tokens - 1);
    this.spending.record(now);
  }

  /**
   * A 429 for a request that started at `startedAt`. Requests already in flight when the
   * bucket last tightened were admitted under the old rate: their 429s carry no news, so
   * only the first 429 of a burst lowers the rate.
   */
  throttled(now: number, startedAt: number, retryAfterMs: number | undefined): void {
    this.refill(now);
    this.tokens = Math.min(this.tokens, 0);
    const news = startedAt >= this.lastTightenedAt;
    if (news) {
      this.consecutiveThrottles += 1;
      const factor = this.factorAt(now);
      const share = this.measuredShare(now, retryAfterMs, factor);
      if (share === undefined) {
        const base = Math.max(this.policy.minFactor, factor * this.policy.decreaseFactor);
        this.recovery = additiveRecovery(base, now, this.policy.recoveryPerSpan);
      } else {
        const ceiling = Math.max(
          this.policy.minFactor,
          Math.min(factor, share, this.policy.maxMeasuredShare),
        );
        const start = Math.max(this.policy.minFactor, ceiling * this.policy.shareStepBack);
        this.recovery = plateauRecovery(start, ceiling, now, this.policy.plateauCubic);
      }
      this.lastTightenedAt = now;
    }
    const blockMs = retryAfterMs ?? (news ? this.backoffMs() : 0);
    this.blockedUntil = Math.max(this.blockedUntil, now + blockMs);
  }

  /**
   * An interactive request found no token and waits (or comes back later): the key is being
   * spent as fast as it refills, so optional work keeps off it for a while (see headroom.ts).
   */
  interactiveWaited(now: number): void {
    this.interactiveWaitedAt = now;
  }

  /** A response that was not a 429: the streak of throttles is over. */
  succeeded(): void {
    this.consecutiveThrottles = 0;
  }

  /** Resyncs from what the server's rate-limit headers said; only ever makes the bucket stricter. */
  resync(now: number, state: ServerRateState): void {
    this.refill(now);
    if (state.remaining !== undefined) this.tokens = Math.min(this.tokens, state.remaining);
    if (state.remaining !== undefined && state.remaining <= 0 && state.resetMs !== undefined) {
      this.blockedUntil = Math.max(this.blockedUntil, now + state.resetMs);
    }
    if (state.limit !== undefined && state.limit >= 1 && state.limit < this.limit.count) {
      this.limit = {
        count: Math.floor(state.limit),
        windowSeconds: state.windowSeconds ?? this.limit.windowSeconds,
      };
      this.shape = fixedWindowSafeShape(this.limit, this.margin);
      this.tokens = Math.min(this.tokens, this.shape.capacity);
    }
  }

  snapshot(now: number): BucketSnapshot {
    this.refill(now);
    return {
      limit: this.limit,
      factor: this.factorAt(now),
      tokens: this.tokens,
      capacity: this.shape.capacity,
      refillPerSecond: this.shape.refillPerMs * this.factorAt(now) * 1000,
      blockedForMs: Math.max(0, this.blockedUntil - now),
      msSinceInteractiveWait: now - this.interactiveWaitedAt,
    };
  }

  get configuredLimit(): RateLimit {
    return this.configured;
  }

  private factorAt(now: number): number {
    const spans = (now - this.recovery.since) / this.shape.spanMs;
    return Math.min(1, recoveredFactor(this.recovery, spans));
  }

  /**
   * The part of the key this bucket got in the server window that a 429 just closed, as a
   * fraction of the configured limit (the unit of the factor), or undefined when what it spent
   * says nothing about that. The server counts in fixed windows; a Retry-After no longer than
   * a window says when this one ends, hence where it began; without one, the last window's
   * length is taken, which can only overstate the share (a gentler step, and a later 429 to
   * learn from). Undefined when the bucket spent over too short a time (it just started, or
   * the window filled at once), or well below what its own rate allowed (demand, not the
   * key, kept it low).
   */
  private measuredShare(now: number, retryAfterMs: number | undefined, factor: number): number | undefined {
    const windowMs = this.limit.windowSeconds * 1000;
    const windowStart =
      retryAfterMs !== undefined && retryAfterMs <= windowMs ? now + retryAfterMs - windowMs : now - windowMs;
    const from = Math.max(windowStart, this.spending.firstAt);
    const measuredMs = now - from;
    if (!(measuredMs >= this.policy.minMeasuredWindowFraction * windowMs)) return undefined;
    const spent = this.spending.countSince(from, now);
    if (!Number.isFinite(spent)) return undefined;
    const couldSpend = this.shape.capacity + this.shape.refillPerMs * factor * measuredMs;
    if (spent < this.policy.minBusyFraction * couldSpend) return undefined;
    return spent / this.limit.count;
  }

  private refill(now: number): void {
    if (now <= this.updatedAt) return;
    // The factor at the start of the interval is the lowest one in it (it only grows between
    // throttles), so using it never over-counts refilled tokens.
    const gained = (now - this.updatedAt) * this.shape.refillPerMs * this.factorAt(this.updatedAt);
    this.tokens = Math.min(this.shape.capacity, this.tokens + gained);
    this.updatedAt = now;
  }

  private backoffMs(): number {
    const exponent = Math.max(0, this.consecutiveThrottles - 1);
    const ceiling = Math.min(this.policy.backoffMaxMs, this.policy.backoffBaseMs * 2 ** exponent);
    // Equal jitter: half fixed so the backoff still grows, half random so that processes
    // sharing a key do not come back in lockstep.
    return ceiling / 2 + this.random() * (ceiling / 2);
  }
}
