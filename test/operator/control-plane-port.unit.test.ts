// The port's short waits for an empty budget: at most `maxInPlaceWaits` reconciles wait in
// place at once; past that a short wait too returns Throttled, so that a saturated key cannot
// hold every worker while the objects of other connections queue behind it. Still throttled,
// a reconcile is told to come back at its own place in the line (ThrottleLine).
import { describe, expect, it } from 'vitest';
import type { ControlPlaneApi, Result } from '../../src/controlplane/client/index.js';
import type { Deployment } from '../../src/controlplane/models/index.js';
import { controlPlanePort } from '../../src/reconcilers/agentdeployment/control-plane-port.js';
import { FakeClock } from '../runtime/support/fake-clock.js';

/** A client whose budget is always just empty: every GET is refused locally with a 20 ms wait. */
function alwaysEmpty(calls: { count: number }): ControlPlaneApi {
  const throttled: Result<Deployment> = {
    ok: false,
    error: {
      kind: 'Throttled',
      retryAfterMs: 20,
      message: 'GET /v2/deployments/{id}: rate budget empty',
      method: 'GET',
      route: '/v2/deployments/{id}',
      attempts: 0,
    },
  };
  return {
    getDeployment: () => {
      calls.count += 1;
      return Promise.resolve(throttled);
    },
  } as unknown as ControlPlaneApi;
}

describe('controlPlanePort: waiting in place for the budget', () => {
  it('lets at most maxInPlaceWaits reconciles wait; the others get Throttled at once', async () => {
    const calls = { count: 0 };
    const port = controlPlanePort({
      client: alwaysEmpty(calls),
      allowedRatePerSecond: 100,
      budgetHeadroom: () => 0,
      maxInPlaceWaits: () => 1,
    });
    const signal = new AbortController().signal;
    const results = await Promise.all([1, 2, 3].map(() => port.getDeployment('id', signal)));
    expect(results.every((result) => !result.ok && result.error.kind === 'Throttled')).toBe(true);
    // One waited and tried three more times; the two others tried once each.
    expect(calls.count).toBe(4 + 1 + 1);
  });

  it('gives reconciles still throttled after their waits places in a line, spaced at the budget rate', async () => {
    const port = controlPlanePort({
      client: alwaysEmpty({ count: 0 }),
      allowedRatePerSecond: 100,
      budgetHeadroom: () => 0,
      maxInPlaceWaits: () => 0,
    });
    const signal = new AbortController().signal;
    const results = await Promise.all([1, 2, 3].map(() => port.getDeployment('id', signal)));
    const waits = results.map((result) => (result.ok ? 0 : (result.error.retryAfterMs ?? 0)));
    // Each at least the budget's own 20 ms; each next 10 ms (1/100 s) later, less the
    // milliseconds that passed between the three calls.
    expect(waits[0]).toBeGreaterThanOrEqual(15);
    expect(waits[1]! - waits[0]!).toBeGreaterThan(5);
    expect(waits[2]! - waits[1]!).toBeGreaterThan(5);
    expect(waits[2]!).toBeLessThanOrEqual(40);
  });

  it('without a limit every reconcile waits its short waits', async () => {
    const calls = { count: 0 };
    const port = controlPlanePort({
      client: alwaysEmpty(calls),
      allowedRatePerSecond: 100,
      budgetHeadroom: () => 0,
    });
    const signal = new AbortController().signal;
    await Promise.all([1, 2, 3].map(() => port.getDeployment('id', signal)));
    expect(calls.count).toBe(3 * 4);
  });

  it('takes a create token in place when the budget is only just empty, and sends the POST on it', async () => {
    const held: number[] = [];
    let refusals = 2;
    const sent: unknown[] = [];
    const port = controlPlanePort({
      client: {
        createDeployment: (_request: unknown, options: unknown) => {
          sent.push(options);
          return Promise.resolve({ ok: true, value: {} });
        },
      } as unknown as ControlPlaneApi,
      allowedRatePerSecond: 100,
      budgetHeadroom: () => 0,
      takeCreateToken: () => (refusals-- > 0 ? { ok: false, waitMs: 5 } : { ok: true }),
      holdBulkFor: (ms) => held.push(ms),
    });
    const signal = new AbortController().signal;
    const token = await port.reserveCreate('team-a/agent', signal);
    expect(token).toEqual({ ok: true, value: { kind: 'CreateToken' } });
    // Two short waits in place; bulk work stayed back meanwhile.
    expect(held).toHaveLength(2);
    if (!token.ok) return;
    await port.createDeployment({} as never, signal, token.value);
    expect(sent).toEqual([expect.objectContaining({ waitForBudget: false, firstTokenTaken: true })]);
  });

  it('spends a create token on one attempt only: a create sent again after a short wait takes its own', async () => {
    const sent: Array<{ firstTokenTaken?: boolean }> = [];
    const port = controlPlanePort({
      client: {
        createDeployment: (_request: unknown, options: { firstTokenTaken?: boolean }) => {
          sent.push(options);
          // Refused locally, as if its token had not counted: the port waits and calls again.
          return Promise.resolve(
            sent.length === 1
              ? {
                  ok: false,
                  error: {
                    kind: 'Throttled',
                    retryAfterMs: 5,
                    attempts: 0,
                    method: 'POST',
                    route: '/v2/deployments',
                    message: 'refused',
                  },
                }
              : { ok: true, value: {} },
          );
        },
      } as unknown as ControlPlaneApi,
      allowedRatePerSecond: 100,
      budgetHeadroom: () => 0,
    });
    const signal = new AbortController().signal;
    await port.createDeployment({} as never, signal, { kind: 'CreateToken' });
    expect(sent.map((options) => options.firstTokenTaken === true)).toEqual([true, false]);
  });

  it('gives a create the budget cannot admit soon its place in line, in words that name no wait', async () => {
    const port = controlPlanePort({
      client: alwaysEmpty({ count: 0 }),
      allowedRatePerSecond: 100,
      budgetHeadroom: () => 0,
      takeCreateToken: () => ({ ok: false, waitMs: 2_000 }),
    });
    const signal = new AbortController().signal;
    const [first, second] = await Promise.all([
      port.reserveCreate('team-a/agent', signal),
      port.reserveCreate('team-a/agent', signal),
    ]);
    if (first?.ok !== false || second?.ok !== false) throw new Error('expected two refusals');
    expect(first.error.kind).toBe('Throttled');
    expect(first.error.retryAfterMs).toBeGreaterThanOrEqual(1_990);
    // The second is placed behind the first, about one token (10 ms at 100/s) later.
    expect((second.error.retryAfterMs ?? 0) - (first.error.retryAfterMs ?? 0)).toBeGreaterThan(5);
    // The next pass with the same answer finds the same status and writes nothing.
    expect(first.error.message).toBe(second.error.message);
    expect(first.error.message).not.toMatch(/\d+ ms/);
  });

  it("places a throttled create by its object's namespace: not behind another namespace's places", async () => {
    const port = controlPlanePort({
      client: alwaysEmpty({ count: 0 }),
      allowedRatePerSecond: 10,
      budgetHeadroom: () => 0,
      takeCreateToken: () => ({ ok: false, waitMs: 500 }),
      clock: new FakeClock(),
    });
    const signal = new AbortController().signal;
    const waits: number[] = [];
    for (const key of ['team-b/one', 'team-b/two', 'team-b/three', 'team-a/victim']) {
      const refused = await port.reserveCreate(key, signal);
      if (refused.ok) throw new Error('expected a refusal');
      waits.push(refused.error.retryAfterMs ?? 0);
    }
    // team-b's places a token apart (100 ms at 10/s); team-a's first at the budget's wait.
    expect(waits).toEqual([500, 600, 700, 500]);
  });
});
