// When to try again, and how long to wait first.
import type { RandomSource } from '../budget/clock.js';

export interface RetryPolicy {
  /** First backoff, doubled per attempt. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Total attempts, the first one included. */
  maxAttempts: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseDelayMs: 500, maxDelayMs: 30_000, maxAttempts: 5 };

/** Statuses that say "not now" rather than "not this": worth another attempt. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * Methods whose repetition is harmless. PATCH is not one here: the control plane's PATCH is a
 * merge that creates a new revision, so sending it twice can build twice.
 */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

export function isIdempotent(method: string): boolean {
  return IDEMPOTENT_METHODS.has(method.toUpperCase());
}

export interface RetryCandidate {
  method: string;
  /** The failure is of a retryable sort (status in RETRYABLE_STATUSES, timeout, reset, connect). */
  retryable: boolean;
  /** The failure proves the server did not act: connection refused, DNS failure, a 429. */
  neverReached: boolean;
}

/** A non-idempotent request is repeated only when the failure proves it never took effect. */
export function mayRetry(candidate: RetryCandidate): boolean {
  if (!candidate.retryable) return false;
  return isIdempotent(candidate.method) || candidate.neverReached;
}

/**
 * Backoff before attempt `attempt + 1` (attempt counts from 1): base * 2^(attempt-1), capped,
 * with equal jitter (half fixed, half random) so that it grows yet callers spread out.
 */
export function backoffDelayMs(attempt: number, policy: RetryPolicy, random: RandomSource): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return ceiling / 2 + random() * (ceiling / 2);
}

export function validateRetryPolicy(policy: RetryPolicy): void {
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new Error(`retry.maxAttempts must be an integer >= 1 (got ${String(policy.maxAttempts)})`);
  }
  if (!(policy.baseDelayMs >= 0))
    throw new Error(`retry.baseDelayMs must be >= 0 (got ${String(policy.baseDelayMs)})`);
  if (!(policy.maxDelayMs >= policy.baseDelayMs)) {
    throw new Error(`retry.maxDelayMs must be >= retry.baseDelayMs (got ${String(policy.maxDelayMs)})`);
  }
}
