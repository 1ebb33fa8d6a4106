// A trace deletion (bulk) and a rollout backlog (interactive) on one key. Throttled reconciles
// are told when to come back, one per token (ThrottleLine); they come back a few ms late. Bulk
// takes a token whenever two are free, so without a hold it took the tokens those late
// reconciles were promised, and each robbed reconcile went to the back of the line: the
// rollouts finished later by every token the deletion took (measured at the resource level:
// 1000 AgentDeployments 1.26x their floor beside a deletion of a million ids). Here, 300
// reconciles: 4.00 s and 94 tokens to the deletion without the hold, 3.08 s and 1 with it.
import { describe, expect, it } from 'vitest';
import { RateBudget, type BudgetRequest } from '../../src/controlplane/budget/rate-budget.js';
import type { ControlPlaneApi, Result } from '../../src/controlplane/client/index.js';
import type { Deployment } from '../../src/controlplane/models/index.js';
import { controlPlanePort } from '../../src/reconcilers/agentdeployment/control-plane-port.js';
import { FakeClock } from '../controlplane-client/support/fake-clock.js';
import { loneLaneOn } from './support/lone-lane.js';

const RECONCILES = 300;
/** How late a throttled reconcile comes back after the time it was given: 2 to 21 ms, varying. */
const LATE_MS = 2;
const JITTER_MS = 20;
const get: BudgetRequest = { method: 'GET', path: '/v2/deployments/x', credentialFingerprint: 'fp' };
const deletion: BudgetRequest = {
  method: 'POST',
  path: '/api/v1/runs/delete',
  credentialFingerprint: 'fp',
  priority: 'bulk',
};

/** A client that asks the budget without waiting, as the operator's calls do. */
function clientOn(budget: RateBudget): ControlPlaneApi {
  return {
    getDeployment: (): Promise<Result<Deployment>> => {
      const reservation = budget.reserve(get);
      if (reservation.ok) return Promise.resolve({ ok: true, value: {} as Deployment });
      return Promise.resolve({
        ok: false,
        error: {
          kind: 'Throttled',
          retryAfterMs: reservation.waitMs,
          message: 'rate budget empty',
          method: 'GET',
          route: '/v2/deployments/{id}',
          attempts: 0,
        },
      });
    },
  } as unknown as ControlPlaneApi;
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
}

/** RECONCILES reconciles at once beside a deletion stream: when the last is done, and what bulk took by then. */
async function backlogBesideDeletion(holdBulk: boolean): Promise<{ doneAtMs: number; bulkTaken: number }> {
  const clock = new FakeClock();
  const start = clock.now();
  const budget = new RateBudget({ clock, random: () => 0.5 });
  const port = controlPlanePort({
    client: clientOn(budget),
    allowedRatePerSecond: 100,
    budgetHeadroom: () => 0,
    maxInPlaceWaits: () => 0,
    clock,
    ...(holdBulk ? { holdBulkFor: (ms: number) => budget.holdBulkFor(ms) } : {}),
  });
  let bulkTaken = 0;
  let done = 0;
  const signal = new AbortController().signal;
  const deleteNext = (): void => {
    budget.acquire(deletion).then(
      () => {
        if (done < RECONCILES) bulkTaken += 1;
        deleteNext();
      },
      // Rejected when the budget closes at the end.
      () => undefined,
    );
  };
  deleteNext();
  // The same lateness every run: a fixed-seed generator (a linear congruential one).
  let seed = 42;
  const late = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return LATE_MS + (seed % JITTER_MS);
  };
  const reconcile = async (): Promise<void> => {
    const result = await port.getDeployment('x', signal);
    if (result.ok) done += 1;
    else clock.setTimeout(() => void reconcile(), (result.error.retryAfterMs ?? 0) + late());
  };
  for (let i = 0; i < RECONCILES; i += 1) void reconcile();
  while (done < RECONCILES && clock.now() - start < 60_000) {
    clock.advance(1);
    await settle();
  }
  budget.close();
  return { doneAtMs: clock.now() - start, bulkTaken };
}

describe('a bulk deletion beside throttled reconciles on one key', () => {
  it('takes no token a throttled reconcile was told to come back for', async () => {
    const held = await backlogBesideDeletion(true);
    // Bulk takes a token only from a full bucket (the late reconciles still find one each):
    // refill that would otherwise be thrown away, a few percent of the tokens.
    expect(held.bulkTaken).toBeLessThanOrEqual(RECONCILES * 0.05);
    expect(held.doneAtMs).toBeLessThan((RECONCILES / 100) * 1000 * 1.05);
  });

  it('would otherwise take some, and the reconciles would finish later', async () => {
    const unheld = await backlogBesideDeletion(false);
    const held = await backlogBesideDeletion(true);
    expect(unheld.bulkTaken).toBeGreaterThan(50);
    expect(unheld.doneAtMs).toBeGreaterThan(held.doneAtMs * 1.2);
  });
});

describe("the operator's lanes", () => {
  it('hold bulk work on the connection budget when a reconcile is throttled', async () => {
    const budget = new RateBudget({ overrides: { default: { count: 1, windowSeconds: 10 } } });
    const { lane, client } = loneLaneOn(budget, 'lane-test-key');
    while (budget.reserve({ ...get, credentialFingerprint: client.credentialFingerprint }).ok);
    const bulk = { ...deletion, credentialFingerprint: client.credentialFingerprint };
    const before = budget.peekWaitMs(bulk);
    const throttled = await lane.controlPlane.getDeployment('x', new AbortController().signal);
    expect(throttled.ok ? 0 : (throttled.error.retryAfterMs ?? 0)).toBeGreaterThan(0);
    const retryAfter = throttled.ok ? 0 : (throttled.error.retryAfterMs ?? 0);
    expect(budget.peekWaitMs(bulk)).toBeGreaterThan(Math.max(before, retryAfter));
    budget.close();
    await client.close();
  });
});
