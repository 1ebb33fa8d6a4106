// What a lane's optional calls (the poller's early and coalesced lists, revision polls) read as
// spare budget. On a key whose creates wait for tokens, the budget is spent as fast as it
// refills, yet between two creates its bucket holds a token or two: read by its fill alone it
// looked spare at most moments, so the poller listed a few ids every tick and each list took
// a create's token (155 lists for 1,000 objects on a saturated 200/10 key, where about 30 do).
import { describe, expect, it } from 'vitest';
import { RateBudget, type BudgetRequest } from '../../src/controlplane/budget/rate-budget.js';
import type { ControlPlaneClient } from '../../src/controlplane/client/control-plane-client.js';
import { FakeClock } from '../controlplane-client/support/fake-clock.js';
import { loneLaneOn } from './support/lone-lane.js';
import { earlyLookHeadroomProbe } from '../../src/reconcilers/agentdeployment/connection-lanes.js';
import { ThrottleLine } from '../../src/reconcilers/agentdeployment/throttle-line.js';
import { EARLY_LOOK_QUIET_MS } from '../../src/controlplane/budget/headroom.js';

function laneOnDrainedKey(): {
  clock: FakeClock;
  budget: RateBudget;
  client: ControlPlaneClient;
  headroom: () => number;
  create: BudgetRequest;
  /** Lets time pass until the bucket holds `share` of its capacity. */
  refillTo: (share: number) => void;
} {
  const clock = new FakeClock();
  const budget = new RateBudget({ overrides: { default: { count: 200, windowSeconds: 10 } }, clock });
  const { lane, client } = loneLaneOn(budget, 'lane-headroom-key');
  const create: BudgetRequest = {
    method: 'POST',
    path: '/v2/deployments',
    credentialFingerprint: client.credentialFingerprint,
  };
  const refillTo = (share: number): void => {
    const capacity = budget.report(create)[0]?.capacity ?? 0;
    while ((budget.report(create)[0]?.tokens ?? 0) < capacity * share) clock.advance(10);
  };
  // Drained without a refusal: a refused reserve is itself a create that waited.
  while ((budget.report(create)[0]?.tokens ?? 0) >= 1) expect(budget.reserve(create).ok).toBe(true);
  return { clock, budget, client, headroom: () => lane.controlPlane.budgetHeadroom(), create, refillTo };
}

describe("a lane's spare budget", () => {
  it('is none for a while after a create found the key empty, however full the bucket is meanwhile', async () => {
    const { clock, budget, client, headroom, create, refillTo } = laneOnDrainedKey();
    expect(budget.reserve(create).ok).toBe(false);
    // Refilled to more than half between two creates.
    refillTo(0.6);
    expect(headroom()).toBe(0);
    // Once no create has waited for a while, the fill speaks again.
    clock.advance(5_000);
    expect(headroom()).toBeGreaterThanOrEqual(0.5);
    budget.close();
    await client.close();
  });

  it('is read from the fill alone when nothing has waited', async () => {
    const { budget, client, headroom, refillTo } = laneOnDrainedKey();
    refillTo(0.6);
    expect(headroom()).toBeGreaterThanOrEqual(0.5);
    budget.close();
    await client.close();
  });
});

describe("a lane's early looks at new revisions", () => {
  it('wait for half a second without a create finding the key empty, then for a half-full bucket', async () => {
    const { clock, budget, client, create, refillTo } = laneOnDrainedKey();
    const headroom = earlyLookHeadroomProbe(client, new ThrottleLine(() => 20, clock));
    expect(budget.reserve(create).ok).toBe(false);
    refillTo(0.6);
    expect(headroom()).toBe(0);
    clock.advance(EARLY_LOOK_QUIET_MS);
    expect(headroom()).toBeGreaterThanOrEqual(0.5);
    // Spent again (its creates took the tokens without waiting): the fill speaks.
    while ((budget.report(create)[0]?.tokens ?? 0) >= 1) expect(budget.reserve(create).ok).toBe(true);
    expect(headroom()).toBeLessThan(0.5);
    budget.close();
    await client.close();
  });

  it("wait while a throttled reconcile holds a place in the key's line, however spare the bucket", async () => {
    const { clock, budget, client, refillTo } = laneOnDrainedKey();
    const line = new ThrottleLine(() => 20, clock);
    const headroom = earlyLookHeadroomProbe(client, line);
    refillTo(1);
    clock.advance(EARLY_LOOK_QUIET_MS);
    expect(headroom()).toBeGreaterThanOrEqual(0.5);
    const placeMs = line.place(0);
    expect(headroom()).toBe(0);
    clock.advance(placeMs + 1_000 / 20);
    expect(headroom()).toBeGreaterThanOrEqual(0.5);
    budget.close();
    await client.close();
  });
});
