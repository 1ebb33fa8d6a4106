// One token bucket for one (row, identity): fixed-window-safe (see fixed-window-shape.ts), and
// adaptive. A 429 means our picture of the limit is wrong (another process shares the key, or
// the server's limit is lower than configured): the bucket then blocks for a while and lowers
// its rate multiplicatively, and climbs back additively, never above the configured rate
// (AIMD, the scheme TCP uses for the same problem: find the rate a shared resource allows).
import { fixedWindowSafeShape, type BucketShape, type SafetyMargin } from './fixed-window-shape.js';
import type { RandomSource } from './clock.js';
import type { RateLimit } from './rate-table.js';

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
}

export const DEFAULT_ADAPTATION: AdaptationPolicy = {
  decreaseFactor: 0.5,
  minFactor: 0.05,
  recoveryPerSpan: 0.05,
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
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
}

const TOKEN_EPSILON = 1e-9;

export class AdaptiveBucket {
  private limit: RateLimit;
  private shape: BucketShape;
  private tokens: number;
  private updatedAt: number;
  private factorBase = 1;
  private factorSince: number;
  private blockedUntil = Number.NEGATIVE_INFINITY;
  private consecutiveThrottles = 0;
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
    this.factorSince = now;
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
  }

  /**
   * A 429 for a request that started at `startedAt`. Requests already in flight when the
   * bucket last tightened were admitted under the old rate: their 429s carry no news, so
   * only the first 429 of a burst halves the rate.
   */
  throttled(now: number, startedAt: number, retryAfterMs: number | undefined): void {
    this.refill(now);
    this.tokens = Math.min(this.tokens, 0);
    const news = startedAt >= this.lastTightenedAt;
    if (news) {
      this.consecutiveThrottles += 1;
      this.factorBase = Math.max(this.policy.minFactor, this.factorAt(now) * this.policy.decreaseFactor);
      this.factorSince = now;
      this.lastTightenedAt = now;
    }
    const blockMs = retryAfterMs ?? (news ? this.backoffMs() : 0);
    this.blockedUntil = Math.max(this.blockedUntil, now + blockMs);
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
    };
  }

  get configuredLimit(): RateLimit {
    return this.configured;
  }

  private factorAt(now: number): number {
    const spans = Math.max(0, now - this.factorSince) / this.shape.spanMs;
    return Math.min(1, this.factorBase + spans * this.policy.recoveryPerSpan);
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
