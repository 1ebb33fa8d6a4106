// Fixed-window rate limiting per API key, as the production service does it: each key
// may make `count` requests in each window of `windowSeconds`, windows aligned to
// multiples of the window length since the epoch.

export interface RateLimitConfig {
  count: number;
  windowSeconds: number;
}

export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class FixedWindowRateLimiter {
  private config: RateLimitConfig | 'off';
  private readonly windows = new Map<string, { start: number; used: number }>();

  constructor(config: RateLimitConfig | 'off') {
    this.config = config;
  }

  configure(config: RateLimitConfig | 'off'): void {
    this.config = config;
    this.windows.clear();
  }

  current(): RateLimitConfig | 'off' {
    return this.config;
  }

  reset(): void {
    this.windows.clear();
  }

  /** Charges one request to `key` at time `now` (ms) and says whether it may proceed. */
  take(key: string, now: number): RateLimitDecision {
    if (this.config === 'off') return { allowed: true };
    const windowMs = this.config.windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      window = { start, used: 0 };
      this.windows.set(key, window);
    }
    if (window.used >= this.config.count) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((start + windowMs - now) / 1000)) };
    }
    window.used++;
    return { allowed: true };
  }
}
