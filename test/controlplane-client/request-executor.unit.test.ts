// The retry loop against a scripted transport and virtual time: what is sent, how often, and
// what comes back.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RateBudget } from '../../src/controlplane/budget/rate-budget.js';
import type {
  HttpExchange,
  Transport,
  TransportResult,
} from '../../src/controlplane/client/http-transport.js';
import type { ClientMetrics } from '../../src/controlplane/client/metrics.js';
import { RequestExecutor, type CallSpec } from '../../src/controlplane/client/request-executor.js';
import { DEFAULT_RETRY_POLICY } from '../../src/controlplane/client/retry-policy.js';
import { ROUTES } from '../../src/controlplane/client/routes.js';
import { FakeClock } from './support/fake-clock.js';

class ScriptedTransport implements Transport {
  readonly sent: HttpExchange[] = [];
  constructor(private readonly script: TransportResult[]) {}
  send(exchange: HttpExchange): Promise<TransportResult> {
    this.sent.push(exchange);
    const next = this.script.shift();
    if (next === undefined) throw new Error('script exhausted');
    return Promise.resolve(next);
  }
}

const ok = (body: unknown = { id: 'd1' }): TransportResult => ({
  type: 'response',
  status: 200,
  headers: {},
  text: JSON.stringify(body),
});
const status = (code: number, headers: Record<string, string> = {}): TransportResult => ({
  type: 'response',
  status: code,
  headers,
  text: JSON.stringify({ detail: `status ${code}` }),
});
const transportFailure = (cause: 'connect' | 'reset' | 'timeout'): TransportResult => ({
  type: 'failure',
  cause,
  code: cause.toUpperCase(),
});

function recordingMetrics() {
  const events = { requests: [] as string[], retries: [] as string[], throttled: 0, waits: [] as number[] };
  const metrics: ClientMetrics = {
    requestDone: (e) => events.requests.push(`${e.method} ${e.route} ${e.code}`),
    budgetWaited: (s) => events.waits.push(s),
    throttled: () => (events.throttled += 1),
    retried: (e) => events.retries.push(e.reason),
  };
  return { events, metrics };
}

function setup(script: TransportResult[], count = 100) {
  const clock = new FakeClock(1_000_000, true);
  const transport = new ScriptedTransport(script);
  const budget = new RateBudget({
    overrides: { default: { count, windowSeconds: 10 } },
    clock,
    random: () => 0.5,
  });
  const { events, metrics } = recordingMetrics();
  const executor = new RequestExecutor({
    transport,
    budget,
    pathPrefix: '/prefix',
    headers: { accept: 'application/json', 'x-api-key': 'sk-test' },
    credentialSecret: 'sk-test',
    credentialFingerprint: 'fp',
    retry: DEFAULT_RETRY_POLICY,
    maxBudgetWaitMs: 60_000,
    deadlineMs: 30_000,
    clock,
    random: () => 0.5,
    metrics,
  });
  return { clock, transport, budget, events, executor };
}

const schema = z.object({ id: z.string() });
const get: CallSpec<{ id: string }> = {
  method: 'GET',
  route: ROUTES.deployment,
  path: '/v2/deployments/d1',
  schema,
};
const post: CallSpec<{ id: string }> = {
  method: 'POST',
  route: ROUTES.deployments,
  path: '/v2/deployments',
  body: { name: 'a' },
  schema,
};
const patch: CallSpec<{ id: string }> = { ...get, method: 'PATCH', body: {} };

describe('request executor', () => {
  it('retries a GET through 503, reset and timeout, backing off, and succeeds', async () => {
    const { executor, transport, events, clock } = setup([
      status(503),
      transportFailure('reset'),
      transportFailure('timeout'),
      ok(),
    ]);
    const start = clock.now();
    const result = await executor.execute(get);
    expect(result).toEqual({ ok: true, value: { id: 'd1' } });
    expect(transport.sent).toHaveLength(4);
    expect(transport.sent[0]?.path).toBe('/prefix/v2/deployments/d1');
    expect(events.retries).toEqual(['503', 'reset', 'timeout']);
    // Equal jitter with random 0.5: 375 + 750 + 1500 ms of backoff.
    expect(clock.now() - start).toBeGreaterThanOrEqual(2625);
  });

  it('gives up after maxAttempts with the last error, saying how many attempts', async () => {
    const { executor, transport } = setup([status(502), status(502), status(502), status(502), status(502)]);
    const result = await executor.execute(get);
    expect(transport.sent).toHaveLength(5);
    expect(result.ok === false && result.error).toMatchObject({
      kind: 'Transient',
      status: 502,
      attempts: 5,
    });
    expect(result.ok === false && result.error.message).toMatch(/after 5 attempts/);
  });

  it('does not retry a POST that may have reached the server: 503, reset, timeout', async () => {
    for (const failure of [status(503), transportFailure('reset'), transportFailure('timeout')]) {
      const { executor, transport } = setup([failure, ok()]);
      const result = await executor.execute(post);
      expect(transport.sent).toHaveLength(1);
      expect(result.ok === false && result.error).toMatchObject({ kind: 'Transient', unclear: true });
    }
  });

  it('does not retry a PATCH after a reset (it creates a revision: not idempotent)', async () => {
    const { executor, transport } = setup([transportFailure('reset'), ok()]);
    const result = await executor.execute(patch);
    expect(transport.sent).toHaveLength(1);
    expect(result.ok === false && result.error).toMatchObject({ kind: 'Transient', unclear: true });
  });

  it('retries a POST that never reached the server: connection refused, then a 429', async () => {
    const { executor, transport, events } = setup([
      transportFailure('connect'),
      status(429, { 'retry-after': '1' }),
      ok(),
    ]);
    const result = await executor.execute(post);
    expect(result.ok).toBe(true);
    expect(transport.sent).toHaveLength(3);
    expect(events.retries).toEqual(['connect', '429']);
    expect(events.throttled).toBe(1);
  });

  it('never retries 400, 401, 403, 404, 409 or 422', async () => {
    for (const code of [400, 401, 403, 404, 409, 422]) {
      const { executor, transport } = setup([status(code), ok()]);
      const result = await executor.execute(get);
      expect(transport.sent, String(code)).toHaveLength(1);
      expect(result.ok).toBe(false);
    }
  });

  it('waits out a 429 Retry-After through the budget before the next attempt', async () => {
    const { executor, clock, events } = setup([status(429, { 'retry-after': '3' }), ok()]);
    const start = clock.now();
    const result = await executor.execute(get);
    expect(result.ok).toBe(true);
    expect(clock.now() - start).toBeGreaterThanOrEqual(3000);
    expect(Math.max(...events.waits)).toBeGreaterThanOrEqual(3);
  });

  it('with waitForBudget false: an empty budget returns Throttled without sending anything', async () => {
    const { executor, transport } = setup([ok(), ok()], 1);
    expect((await executor.execute(get, { waitForBudget: false })).ok).toBe(true);
    const result = await executor.execute(get, { waitForBudget: false });
    expect(transport.sent).toHaveLength(1);
    expect(result.ok === false && result.error).toMatchObject({ kind: 'Throttled', attempts: 0 });
    expect(
      result.ok === false && result.error.kind === 'Throttled' && result.error.retryAfterMs,
    ).toBeGreaterThan(9000);
  });

  it('firstTokenTaken: the first attempt spends the token the caller took, a retry takes its own', async () => {
    const { executor, transport, budget } = setup([transportFailure('connect'), ok()], 1);
    const request = { method: 'POST', path: '/prefix/v2/deployments', credentialFingerprint: 'fp' };
    expect(budget.reserve(request).ok).toBe(true);
    // The key's only token is gone: without the flag this would be Throttled, nothing sent.
    const result = await executor.execute(post, { waitForBudget: false, firstTokenTaken: true });
    expect(transport.sent).toHaveLength(1);
    expect(result.ok === false && result.error).toMatchObject({ kind: 'Throttled', attempts: 1 });
  });

  it('with waitForBudget false: a 429 is handed back at once with its retry time', async () => {
    const { executor, transport } = setup([status(429, { 'retry-after': '7' }), ok()]);
    const result = await executor.execute(get, { waitForBudget: false });
    expect(transport.sent).toHaveLength(1);
    expect(result.ok === false && result.error).toMatchObject({ kind: 'Throttled', retryAfterMs: 7000 });
  });

  it('returns Throttled instead of waiting longer than maxBudgetWaitMs (a Retry-After of an hour)', async () => {
    const { executor, transport } = setup([status(429, { 'retry-after': '3600' }), ok()]);
    const result = await executor.execute(get);
    expect(transport.sent).toHaveLength(1);
    expect(result.ok === false && result.error).toMatchObject({ kind: 'Throttled', retryAfterMs: 3_600_000 });
  });

  it('records every attempt in metrics by route template, never by id', async () => {
    const { executor, events } = setup([status(500), ok()]);
    await executor.execute(get);
    expect(events.requests).toEqual([
      'GET /v2/deployments/{deployment_id} 500',
      'GET /v2/deployments/{deployment_id} 200',
    ]);
  });

  it('stops waiting when the caller aborts, returning the earlier failure', async () => {
    const { executor } = setup([status(503), ok()]);
    const controller = new AbortController();
    const pending = executor.execute(get, { signal: controller.signal });
    setImmediate(() => controller.abort());
    const result = await pending;
    expect(result.ok === false && result.error).toMatchObject({ kind: 'Transient', status: 503 });
  });
});
