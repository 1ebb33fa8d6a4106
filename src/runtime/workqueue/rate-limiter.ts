// controller-runtime's default requeue limiter: the larger of a per-key exponential backoff
// (so one failing object backs off on its own) and an overall token bucket (so a storm of
// failures across many keys cannot flood the API server or the control plane).
import { backoffDelay, type RandomSource } from '../backoff.js';
import type { Clock } from '../clock.js';

export interface RateLimiter {
  /** How long to wait before `key` may be processed again; counts one more failure. */
  when(key: string): number;
  /** Clears `key`'s failure history (after a success). */
  forget(key: string): void;
  /** Failures recorded for `key` since the last `forget`. */
  numRequeues(key: string): number;
}

export interface ItemExponentialOptions {
  baseDelayMs: number;
  maxDelayMs: number;
  /** Share of the delay added at random on top (0 disables jitter). */
  jitter: number;
  random?: RandomSource;
}

export class ItemExponentialRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();

  constructor(private readonly options: ItemExponentialOptions) {}

  when(key: string): number {
    const count = this.failures.get(key) ?? 0;
    this.failures.set(key, count + 1);
    return backoffDelay(count, {
      initialMs: this.options.baseDelayMs,
      maxMs: this.options.maxDelayMs,
      jitter: this.options.jitter,
      random: this.options.random,
    });
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

export interface TokenBucketOptions {
  qps: number;
  burst: number;
}

/**
 * A reserving token bucket like golang.org/x/time/rate's `Reserve`: a caller that finds it
 * empty is told how long until its token will exist, and that token is spoken for.
 */
export class BucketRateLimiter implements RateLimiter {
  private tokens: number;
  private lastRefill: number;

  constructor(
    private readonly options: TokenBucketOptions,
    private readonly clock: Clock,
  ) {
    if (!(options.qps > 0)) throw new Error(`bucket qps must be > 0, got ${options.qps}`);
    if (!(options.burst >= 1)) throw new Error(`bucket burst must be >= 1, got ${options.burst}`);
    this.tokens = options.burst;
    this.lastRefill = clock.now();
  }

  when(): number {
    const now = this.clock.now();
    this.tokens = Math.min(
      this.options.burst,
      this.tokens + ((now - this.lastRefill) / 1000) * this.options.qps,
    );
    this.lastRefill = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.options.qps) * 1000;
  }

  forget(): void {
    // The bucket is shared by all keys; a success frees nothing.
  }

  numRequeues(): number {
    return 0;
  }
}

export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: readonly RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }

  when(key: string): number {
    return Math.max(0, ...this.limiters.map((limiter) => limiter.when(key)));
  }

  forget(key: string): void {
    for (const limiter of this.limiters) limiter.forget(key);
  }

  numRequeues(key: string): number {
    return Math.max(0, ...this.limiters.map((limiter) => limiter.numRequeues(key)));
  }
}

export interface DefaultRateLimiterOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
  jitter?: number;
  qps?: number;
  burst?: number;
  random?: RandomSource;
}

/** 5 ms doubling to 1000 s per key (10 % jitter), overall 10 qps with a burst of 100. */
export function defaultControllerRateLimiter(
  clock: Clock,
  options: DefaultRateLimiterOptions = {},
): RateLimiter {
  return new MaxOfRateLimiter(
    new ItemExponentialRateLimiter({
      baseDelayMs: options.baseDelayMs ?? 5,
      maxDelayMs: options.maxDelayMs ?? 1_000_000,
      jitter: options.jitter ?? 0.1,
      random: options.random,
    }),
    new BucketRateLimiter({ qps: options.qps ?? 10, burst: options.burst ?? 100 }, clock),
  );
}
