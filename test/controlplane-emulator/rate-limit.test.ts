// Fixed windows per API key: `count` requests per window, then 429 {"detail"} with a
// Retry-After of the seconds left in the window (unless switched off). Unknown keys are
// 401 and never charged; the admin API is never limited; stats count the 429s.
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, startEmulator, type EmulatorClient } from './helpers.js';

const clock = new ManualClock(Date.UTC(2030, 0, 1, 0, 0, 0));
const TENANT = '33333333-3333-4333-8333-333333333333';
let client: EmulatorClient;

async function statuses(n: number, key = 'k1'): Promise<number[]> {
  const result: number[] = [];
  for (let i = 0; i < n; i++) result.push((await client.call('GET', '/v2/listeners', { key })).status);
  return result;
}

describe('fixed-window rate limit', () => {
  beforeEach(async () => {
    clock.time = Date.UTC(2030, 0, 1, 0, 0, 0);
    client ??= await startEmulator({
      clock: clock.now,
      rateLimit: { count: 3, windowSeconds: 10 },
      apiKeys: [{ key: 'k1' }, { key: 'k2', tenantIds: [TENANT] }],
    });
    await client.call('PUT', '/_emulator/rate-limit', {
      body: { count: 3, windowSeconds: 10, retryAfter: true },
    });
    await client.call('POST', '/_emulator/reset');
  });

  it('allows `count` requests per window, then 429 with Retry-After to the window end', async () => {
    expect(await statuses(3)).toEqual([200, 200, 200]);
    clock.advance(2500);
    const throttled = await client.call('GET', '/v2/deployments', { key: 'k1' });
    expect(throttled.status).toBe(429);
    expect(throttled.body).toEqual({ detail: 'Rate limit exceeded' });
    expect(throttled.headers.get('retry-after')).toBe('8');
    clock.advance(7500);
    expect(await statuses(1)).toEqual([200]);
  });

  it('counts per key: another key has its own window', async () => {
    expect(await statuses(4, 'k1')).toEqual([200, 200, 200, 429]);
    expect(await statuses(3, 'k2')).toEqual([200, 200, 200]);
  });

  it('charges bearer and X-Api-Key requests of one key to the same window', async () => {
    await statuses(2, 'k1');
    expect(
      (await client.call('GET', '/v2/listeners', { key: null, headers: { authorization: 'Bearer k1' } }))
        .status,
    ).toBe(200);
    expect(
      (await client.call('GET', '/v2/listeners', { key: null, headers: { authorization: 'Bearer k1' } }))
        .status,
    ).toBe(429);
  });

  it('never charges unknown keys, and never limits the admin API', async () => {
    for (let i = 0; i < 5; i++)
      expect((await client.call('GET', '/v2/listeners', { key: 'unknown' })).status).toBe(401);
    expect(await statuses(3)).toEqual([200, 200, 200]);
    for (let i = 0; i < 5; i++) expect((await client.call('GET', '/_emulator/stats')).status).toBe(200);
  });

  it('omits Retry-After when switched off', async () => {
    await client.call('PUT', '/_emulator/rate-limit', {
      body: { count: 1, windowSeconds: 10, retryAfter: false },
    });
    await statuses(1);
    const throttled = await client.call('GET', '/v2/listeners', { key: 'k1' });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBeNull();
  });

  it('can be turned off and reconfigured at run time', async () => {
    await client.call('PUT', '/_emulator/rate-limit', { body: { off: true } });
    expect(new Set(await statuses(10))).toEqual(new Set([200]));
    expect(
      (await client.call('PUT', '/_emulator/rate-limit', { body: { count: 0, windowSeconds: 1 } })).status,
    ).toBe(422);
  });

  it('counts 429s as throttled in the stats, per route and key fingerprint', async () => {
    await statuses(5);
    const stats = await client.call<{
      total: number;
      throttled: number;
      byRoute: { route: string; status: number; count: number }[];
    }>('GET', '/_emulator/stats');
    expect(stats.body.total).toBe(5);
    expect(stats.body.throttled).toBe(2);
    expect(stats.body.byRoute).toContainEqual(
      expect.objectContaining({ route: '/v2/listeners', status: 429, count: 2 }),
    );
  });
});

describe('--no-retry-after at start', () => {
  it('sends no Retry-After', async () => {
    const quiet = await startEmulator({ rateLimit: { count: 1, windowSeconds: 60 }, retryAfter: false });
    await quiet.call('GET', '/v2/listeners');
    const throttled = await quiet.call('GET', '/v2/listeners');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.has('retry-after')).toBe(false);
  });
});
