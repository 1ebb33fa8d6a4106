// The published rate rows, enforced per identity key in fixed windows, with 429 and
// Retry-After. The default API-key row is one window shared with the control plane's routes.
import { Langsmith, RateLimitError } from 'langsmith';
import { describe, expect, it } from 'vitest';
import { FixedWindowRateLimiter } from '../../src/sim/http/rate-limiter.js';
import { PlatformRateLimiter } from '../../src/sim/platform/platform-rate-limiter.js';
import { ingestTrace, KEY, ManualClock, sessionId, startPlatform } from './helpers.js';

const clock = new ManualClock(Date.UTC(2030, 0, 1));
const api = await startPlatform({
  clock: clock.now,
  rateLimit: { count: 5, windowSeconds: 10 },
  apiKeys: [{ key: KEY }, { key: 'second-key' }],
});
const query = (key: string = KEY, headers: Record<string, string> = {}) =>
  api.call('POST', '/api/v1/runs/query', { key, headers, body: { id: [crypto.randomUUID()] } });

describe('per-route rows', () => {
  it('run query: 15 per 10 s per API key, then 429 with Retry-After; other keys unaffected', async () => {
    clock.time = Date.UTC(2030, 0, 1, 0, 0, 0);
    for (let i = 0; i < 15; i += 1) expect((await query()).status).toBe(200);
    const refused = await query();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect((await query('second-key')).status).toBe(200);
    clock.advance(10_000);
    expect((await query()).status).toBe(200);
  });

  it('run query with x-user-id: the user row (300 / 10 s) counts too, the API-key row still binds', async () => {
    clock.time = Date.UTC(2030, 0, 1, 0, 1, 0);
    for (let i = 0; i < 15; i += 1) expect((await query(KEY, { 'x-user-id': 'u-1' })).status).toBe(200);
    expect((await query(KEY, { 'x-user-id': 'u-1' })).status).toBe(429);
  });

  it('run lookup: 30 per 60 s', async () => {
    clock.time = Date.UTC(2030, 0, 1, 0, 2, 0);
    const id = crypto.randomUUID();
    for (let i = 0; i < 30; i += 1) expect((await api.call('GET', `/runs/${id}`)).status).toBe(404);
    expect((await api.call('GET', `/api/v1/runs/${id}`)).status).toBe(429);
  });

  it('example reads have their own row (5000 / 60 s), not the default one', async () => {
    clock.time = Date.UTC(2030, 0, 1, 0, 3, 0);
    const asOf = new Date(clock.now()).toISOString();
    for (let i = 0; i < 8; i += 1)
      expect((await api.call('GET', `/examples?as_of=${asOf}`)).status).toBe(200);
  });

  it('trace delete falls on the default row, one window with the control plane', async () => {
    clock.time = Date.UTC(2030, 0, 1, 0, 4, 0);
    await ingestTrace(api, 'shared', {}, 'second-key');
    const session = await sessionId(api, 'shared', 'second-key');
    for (let i = 0; i < 2; i += 1)
      expect((await api.call('GET', '/v2/listeners', { key: 'second-key' })).status).toBe(200);
    // The batch ingest and the session read were counted by their own rows (high throughput, default).
    const remove = () =>
      api.call('POST', '/api/v1/runs/delete', {
        key: 'second-key',
        body: { session_id: session, trace_ids: [crypto.randomUUID()] },
      });
    expect((await remove()).status).toBe(202);
    expect((await remove()).status).toBe(202);
    expect((await remove()).status).toBe(429);
    expect((await api.call('GET', '/v2/listeners', { key: 'second-key' })).status).toBe(429);
  });
});

describe('regions', () => {
  it('reads its own column: /runs/stats is 1 / 10 s in the US and 20 / 10 s in the EU', () => {
    const now = Date.UTC(2030, 0, 1);
    const count = (region: 'us' | 'eu'): number => {
      const limiter = new PlatformRateLimiter(
        region,
        new FixedWindowRateLimiter({ count: 1000, windowSeconds: 10 }),
      );
      let allowed = 0;
      while (limiter.take('POST', '/api/v1/runs/stats', { apiKey: 'k', ip: '127.0.0.1' }, now).allowed)
        allowed += 1;
      return allowed;
    };
    expect(count('us')).toBe(1);
    expect(count('eu')).toBe(20);
  });
});

describe('the official SDK sees the 429', () => {
  it('raises its own RateLimitError on the 16th run query of a window (retries off)', async () => {
    clock.time = Date.UTC(2030, 0, 1, 0, 5, 0);
    const sdk = new Langsmith({ apiKey: KEY, baseURL: api.url, maxRetries: 0 });
    const project = crypto.randomUUID();
    for (let i = 0; i < 15; i += 1) await sdk.runs.query({ project_ids: [project] });
    await expect(sdk.runs.query({ project_ids: [project] })).rejects.toBeInstanceOf(RateLimitError);
  });
});
