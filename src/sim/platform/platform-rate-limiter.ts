// Fixed windows per (published row, identity value), as the production service counts: a
// request is refused with 429 when any row that counts it is spent, and then charges none.
// The default API-key row is the control plane's own limiter (its `--rate-limit`), so one
// key's control-plane and platform calls draw on one window, as they do on one host.
import type { FixedWindowRateLimiter } from '../http/rate-limiter.js';
import { rowsFor, type Identity, type Limit, type PlatformRegion, type PublishedRow } from './rate-rows.js';

export interface RateIdentity {
  apiKey?: string;
  userId?: string;
  ip: string;
}

export type PlatformRateDecision =
  { allowed: true } | { allowed: false; retryAfterSeconds: number; limit: Limit; category: string };

const DEFAULT_API_KEY_CATEGORY = 'Default (API key)';

export class PlatformRateLimiter {
  private readonly windows = new Map<string, { start: number; used: number }>();

  constructor(
    private readonly region: PlatformRegion,
    private readonly sharedDefault: FixedWindowRateLimiter,
  ) {}

  reset(): void {
    this.windows.clear();
  }

  take(method: string, path: string, who: RateIdentity, now: number): PlatformRateDecision {
    // `--rate-limit off` turns every row off, not only the default one.
    if (this.sharedDefault.current() === 'off') return { allowed: true };
    const identities = new Set<Identity>(['ip']);
    if (who.apiKey !== undefined) identities.add('api-key');
    if (who.userId !== undefined) identities.add('user-id+ip');
    const rows = rowsFor(method, path, identities);
    const charges: { id: string; start: number }[] = [];
    let useShared = false;
    for (const row of rows) {
      if (row.category === DEFAULT_API_KEY_CATEGORY) {
        useShared = true;
        continue;
      }
      const limit = row.limits[this.region];
      const windowMs = limit.windowSeconds * 1000;
      const start = Math.floor(now / windowMs) * windowMs;
      const id = `${row.index}|${identityValue(row, who)}`;
      const window = this.windows.get(id);
      const used = window !== undefined && window.start === start ? window.used : 0;
      if (used >= limit.count) return refusal(row, limit, start + windowMs - now);
      charges.push({ id, start });
    }
    if (useShared && who.apiKey !== undefined) {
      const shared = this.sharedDefault.take(who.apiKey, now);
      if (!shared.allowed) {
        const limit = this.sharedDefault.current() as Limit;
        return {
          allowed: false,
          retryAfterSeconds: shared.retryAfterSeconds,
          limit,
          category: DEFAULT_API_KEY_CATEGORY,
        };
      }
    }
    for (const { id, start } of charges) {
      const window = this.windows.get(id);
      if (window === undefined || window.start !== start) this.windows.set(id, { start, used: 1 });
      else window.used += 1;
    }
    return { allowed: true };
  }
}

function identityValue(row: PublishedRow, who: RateIdentity): string {
  if (row.identity === 'api-key') return `k:${who.apiKey ?? ''}`;
  if (row.identity === 'user-id+ip') return `u:${who.userId ?? ''}@${who.ip}`;
  return `ip:${who.ip}`;
}

function refusal(row: PublishedRow, limit: Limit, remainingMs: number): PlatformRateDecision {
  return {
    allowed: false,
    retryAfterSeconds: Math.max(1, Math.ceil(remainingMs / 1000)),
    limit,
    category: row.category,
  };
}
