// Exponential backoff with jitter and a cap, the shape client-go uses for reflector restarts
// and controller-runtime for per-item requeues. Jitter spreads many retrying clients apart so
// that a recovering API server is not hit by all of them in the same instant.

export type RandomSource = () => number;

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** Multiplier per failure; 2 doubles. */
  factor?: number;
  /** Adds up to `jitter * delay` on top of the delay (0 disables); the cap still applies. */
  jitter?: number;
  random?: RandomSource;
}

/** Delay for the attempt after `failures` consecutive failures (0 → initialMs). */
export function backoffDelay(failures: number, options: BackoffOptions): number {
  const factor = options.factor ?? 2;
  const exponent = Math.max(0, failures);
  // Compute in log space so a large failure count cannot overflow to Infinity/NaN.
  const raw =
    exponent * Math.log(factor) + Math.log(options.initialMs) >= Math.log(options.maxMs)
      ? options.maxMs
      : options.initialMs * factor ** exponent;
  const jitter = options.jitter ?? 0;
  const random = options.random ?? Math.random;
  const jittered = raw + raw * jitter * random();
  return Math.min(options.maxMs, jittered);
}

/** A stateful counter around `backoffDelay` for a single retry loop. */
export class Backoff {
  private failures = 0;

  constructor(private readonly options: BackoffOptions) {}

  /** The delay before the next attempt; each call counts one more failure. */
  next(): number {
    const delay = backoffDelay(this.failures, this.options);
    this.failures += 1;
    return delay;
  }

  reset(): void {
    this.failures = 0;
  }

  get consecutiveFailures(): number {
    return this.failures;
  }
}
