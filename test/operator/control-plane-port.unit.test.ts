// The port's short waits for an empty budget: at most `maxInPlaceWaits` reconciles wait in
// place at once; past that a short wait too returns Throttled, so that a saturated key cannot
// hold every worker while the objects of other connections queue behind it. Still throttled,
// a reconcile is told to come back at its own place in the line (ThrottleLine).
import { describe, expect, it } from 'vitest';
import type { ControlPlaneApi, Result } from '../../src/controlplane/client/index.js';
import type { Deployment } from '../../src/controlplane/models/index.js';
import { controlPlanePort } from '../../src/reconcilers/agentdeployment/control-plane-port.js';

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

  it('tells a create the budget cannot admit soon its place in line before anything is written', () => {
    let waitMs = 60;
    const held: number[] = [];
    const port = controlPlanePort({
      client: alwaysEmpty({ count: 0 }),
      allowedRatePerSecond: 100,
      budgetHeadroom: () => 0,
      createWaitMs: () => waitMs,
      holdBulkFor: (ms) => held.push(ms),
    });
    // A short wait is the create's own to take in place.
    expect(port.createThrottled()).toBeUndefined();
    waitMs = 2_000;
    const first = port.createThrottled();
    const second = port.createThrottled();
    expect(first).toMatchObject({ kind: 'Throttled' });
    expect(first?.retryAfterMs).toBeGreaterThanOrEqual(1_990);
    // The next one is placed behind it, about one token (10 ms at 100/s) later.
    expect((second?.retryAfterMs ?? 0) - (first?.retryAfterMs ?? 0)).toBeGreaterThan(5);
    // Its message names no wait, so that the next pass finds the same status.
    expect(first?.message).toBe(second?.message);
    expect(first?.message).not.toMatch(/\d+ ms/);
    // Bulk work stays back until the places come.
    expect(held).toHaveLength(2);
  });
});
