import { describe, expect, it } from 'vitest';
import { parseRetryAfter, serverRateStateFrom } from '../../src/controlplane/budget/rate-limit-headers.js';

describe('Retry-After', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it('reads delta seconds, fractional seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 1.5 ', now)).toBe(1500);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30_000);
  });
  it('gives 0 for a date in the past and undefined for garbage', () => {
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('rate-limit headers', () => {
  const now = 1_700_000_000_000;
  it('reads X-RateLimit-* (delta and epoch resets)', () => {
    expect(
      serverRateStateFrom(
        { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '7', 'x-ratelimit-reset': '3' },
        now,
      ),
    ).toEqual({
      limit: 100,
      remaining: 7,
      resetMs: 3000,
    });
    expect(serverRateStateFrom({ 'x-ratelimit-reset': String(now / 1000 + 12) }, now)).toEqual({
      resetMs: 12_000,
    });
  });
  it('reads the IETF draft headers, the policy window and the combined RateLimit field', () => {
    expect(
      serverRateStateFrom(
        {
          'ratelimit-limit': '50',
          'ratelimit-remaining': '0',
          'ratelimit-reset': '2',
          'ratelimit-policy': '50;w=10',
        },
        now,
      ),
    ).toEqual({ limit: 50, remaining: 0, resetMs: 2000, windowSeconds: 10 });
    expect(serverRateStateFrom({ ratelimit: 'limit=100, remaining=5, reset=3' }, now)).toEqual({
      limit: 100,
      remaining: 5,
      resetMs: 3000,
    });
    expect(
      serverRateStateFrom(
        { ratelimit: '"default";r=5;t=3', 'ratelimit-policy': '"default";q=100;w=60' },
        now,
      ),
    ).toEqual({
      limit: 100,
      remaining: 5,
      resetMs: 3000,
      windowSeconds: 60,
    });
  });
  it('ignores absent and malformed values', () => {
    expect(serverRateStateFrom({}, now)).toBeUndefined();
    expect(serverRateStateFrom({ 'x-ratelimit-remaining': 'lots' }, now)).toBeUndefined();
  });
});
