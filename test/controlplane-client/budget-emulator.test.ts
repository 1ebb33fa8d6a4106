// The budget against the emulator's fixed-window limiter (20 per 1 s): many concurrent callers,
// with and without Retry-After, with injected 5xx, latency and resets.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ControlPlaneClient } from '../../src/controlplane/client/control-plane-client.js';
import type { ControlPlaneClientOptions } from '../../src/controlplane/client/config.js';
import type { Result } from '../../src/controlplane/client/errors.js';
import { startControlPlaneEmulator, type ControlPlaneEmulator } from '../../src/sim/controlplane/index.js';
import { emulatorAdmin } from './support/emulator.js';

const API_KEY = 'sk-budget-key-0002';
const LIMIT = { count: 20, windowSeconds: 1 };
let emulator: ControlPlaneEmulator;
const clients: ControlPlaneClient[] = [];

function newClient(options: Partial<ControlPlaneClientOptions> = {}): ControlPlaneClient {
  const client = new ControlPlaneClient({
    baseUrl: emulator.url,
    credentials: { apiKey: API_KEY },
    rateLimits: { default: LIMIT },
    ...options,
  });
  clients.push(client);
  return client;
}

/** `callers` concurrent loops, each making `perCaller` calls; resolves to every result. */
async function run<T>(
  callers: number,
  perCaller: number,
  call: () => Promise<Result<T>>,
): Promise<Result<T>[]> {
  const results: Result<T>[] = [];
  await Promise.all(
    Array.from({ length: callers }, async () => {
      for (let i = 0; i < perCaller; i += 1) results.push(await call());
    }),
  );
  return results;
}

/** The POSTs the emulator has counted since its last reset (it counts each when it answers it). */
async function postsCounted(): Promise<number> {
  return (await emulatorAdmin.stats(emulator)).byRoute
    .filter((r) => r.method === 'POST')
    .reduce((n, r) => n + r.count, 0);
}

const failures = (results: Result<unknown>[]) =>
  results.filter((r) => !r.ok).map((r) => (r.ok ? '' : r.error.message));

beforeAll(async () => {
  emulator = await startControlPlaneEmulator({
    apiKeys: [{ key: API_KEY }],
    rateLimit: LIMIT,
    revisionPhaseMs: 0,
  });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await emulator.close();
});
beforeEach(async () => {
  await emulatorAdmin.reset(emulator);
  await emulatorAdmin.clearFaults(emulator);
  await emulatorAdmin.setRateLimit(emulator, LIMIT, true);
});

describe('rate budget against the emulator', () => {
  it('completes 60 concurrent requests with zero 429s when the configured limit equals the server limit', async () => {
    const client = newClient();
    const results = await run(6, 10, () => client.listListeners());
    expect(failures(results)).toEqual([]);
    expect((await emulatorAdmin.stats(emulator)).throttled).toBe(0);
  });

  it('shares one budget between clients of the same key: two clients, still zero 429s', async () => {
    const first = newClient();
    const second = newClient({ budget: first.budget });
    const results = await Promise.all([
      run(3, 10, () => first.listListeners()),
      run(3, 10, () => second.listIntegrations()),
    ]);
    expect(failures(results.flat())).toEqual([]);
    expect((await emulatorAdmin.stats(emulator)).throttled).toBe(0);
  });

  for (const retryAfter of [true, false]) {
    it(`recovers when the server allows less than configured (10/s vs 20/s, Retry-After ${retryAfter ? 'on' : 'off'})`, async () => {
      await emulatorAdmin.setRateLimit(emulator, { count: 10, windowSeconds: 1 }, retryAfter);
      const client = newClient();
      const results = await run(5, 8, () => client.listListeners());
      expect(failures(results)).toEqual([]);
      const stats = await emulatorAdmin.stats(emulator);
      // Bounded: the first 429s tighten the bucket; far fewer than the 40 requests.
      expect(stats.throttled).toBeLessThanOrEqual(15);
    });
  }

  it('completes every GET through injected 503s, 502s, latency and connection resets', async () => {
    await emulatorAdmin.setRateLimit(emulator, { off: true });
    await emulatorAdmin.addFault(emulator, {
      method: 'GET',
      route: '/v2/listeners',
      status: 503,
      rate: 0.2,
      count: 10,
    });
    await emulatorAdmin.addFault(emulator, {
      method: 'GET',
      route: '/v2/listeners',
      status: 502,
      rate: 0.1,
      count: 5,
    });
    await emulatorAdmin.addFault(emulator, {
      method: 'GET',
      route: '/v2/listeners',
      reset: true,
      rate: 0.1,
      count: 5,
    });
    await emulatorAdmin.addFault(emulator, {
      method: 'GET',
      route: '/v2/listeners',
      latencyMs: 150,
      rate: 0.2,
    });
    // 20 failures in all (10 + 5 + 5; the latency rule fails nothing). With 21 attempts a request
    // completes even if every one of them lands on it, so "every request completes" is a
    // property of the client, not of the draw: with 8 attempts, one request in a few thousand
    // met 8 failures in a row (about one run in a hundred failed that way).
    const client = newClient({ retry: { baseDelayMs: 20, maxDelayMs: 200, maxAttempts: 21 } });
    const results = await run(4, 10, () => client.listListeners());
    expect(failures(results)).toEqual([]);
    const stats = await emulatorAdmin.stats(emulator);
    expect(stats.total).toBeGreaterThan(40); // some were retried
  });

  it('turns a deadline into a Transient, unclear error, and retries it for a GET', async () => {
    await emulatorAdmin.addFault(emulator, {
      method: 'GET',
      route: '/v2/listeners',
      latencyMs: 400,
      count: 1,
    });
    const client = newClient({ deadlineMs: 150, retry: { baseDelayMs: 10, maxDelayMs: 50 } });
    const result = await client.listListeners();
    expect(result.ok).toBe(true);
    await emulatorAdmin.addFault(emulator, {
      method: 'POST',
      route: '/v2/deployments',
      latencyMs: 400,
      count: 1,
    });
    const created = await client.createDeployment({
      name: 'slow-one',
      source: 'external_container',
      source_config: {},
      source_revision_config: { image_uri: 'registry.example/agent:1' },
      secrets: [],
    });
    expect(created.ok === false && created.error).toMatchObject({
      kind: 'Transient',
      unclear: true,
      attempts: 1,
    });
    // The emulator still answers the abandoned POST after its 400 ms and counts it then: wait
    // for that here, or it lands in the next test's counts when the machine is slow (seen on
    // CI: that test found 4 POSTs for its 3).
    await expect.poll(postsCounted, { timeout: 5_000 }).toBe(1);
  });

  it('does not repeat a POST after a reset (unclear) but does after a 429 (never reached)', async () => {
    const client = newClient({ retry: { baseDelayMs: 10, maxDelayMs: 50 } });
    const listeners = await client.listListeners();
    const listenerId = listeners.ok ? listeners.value.resources[0]?.id : undefined;
    if (!listenerId) throw new Error('the emulator lists no listener');
    const body = {
      name: 'reset-one',
      source: 'external_container' as const,
      source_config: { listener_id: listenerId },
      source_revision_config: { image_uri: 'registry.example/agent:1' },
      secrets: [],
    };
    await emulatorAdmin.addFault(emulator, {
      method: 'POST',
      route: '/v2/deployments',
      reset: true,
      count: 1,
    });
    const reset = await client.createDeployment(body);
    expect(reset.ok === false && reset.error).toMatchObject({ kind: 'Transient', unclear: true });
    await emulatorAdmin.addFault(emulator, {
      method: 'POST',
      route: '/v2/deployments',
      status: 429,
      retryAfterSeconds: 0,
      count: 1,
    });
    const retried = await client.createDeployment({ ...body, name: 'after-429' });
    // Sent twice (the 429, then the retry), and the retry created the deployment.
    const posts = await postsCounted();
    expect(posts).toBe(3);
    expect(retried.ok && retried.value.name).toBe('after-429');
  });

  it('completes requests across an emulator restart (every connection dropped)', async () => {
    const client = newClient({ retry: { baseDelayMs: 20, maxDelayMs: 200 } });
    const answeredAt: number[] = [];
    const running = run(3, 10, async () => {
      const result = await client.listListeners();
      answeredAt.push(Date.now());
      return result;
    });
    // Restart once some calls are answered, so that the rest cross the restart.
    const deadline = Date.now() + 10_000;
    while (answeredAt.length < 3 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const restartedAt = Date.now();
    await emulator.restart();
    expect(failures(await running)).toEqual([]);
    expect(answeredAt.filter((at) => at > restartedAt).length).toBeGreaterThan(0);
  });
});
