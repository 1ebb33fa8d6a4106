// One rate budget per credential for deployments and deletions: a bulk stream never leaves an
// interactive call an empty bucket, interactive waiters go first, and the stream loses no rate.
import { describe, expect, it } from 'vitest';
import { RateBudget, type BudgetRequest } from '../../src/controlplane/budget/rate-budget.js';
import { FakeClock } from '../controlplane-client/support/fake-clock.js';

const deletion: BudgetRequest = {
  method: 'POST',
  path: '/api/v1/runs/delete',
  credentialFingerprint: 'fp',
  priority: 'bulk',
};
const rollout: BudgetRequest = { method: 'PATCH', path: '/v2/deployments/x', credentialFingerprint: 'fp' };

/** Keeps `depth` requests of `request` waiting on the budget, re-queueing each one admitted. */
function stream(budget: RateBudget, request: BudgetRequest, depth: number): { admitted: number } {
  const counter = { admitted: 0 };
  const next = (): void => {
    void budget.acquire(request).then(
      () => {
        counter.admitted += 1;
        next();
      },
      () => undefined,
    );
  };
  for (let i = 0; i < depth; i += 1) next();
  return counter;
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
}

/** Steps 10 s in 1 ms steps; every 37 ms a rollout call tries reserve(). Returns how many were refused. */
async function rolloutRefusals(
  priority: BudgetRequest['priority'],
): Promise<{ refused: number; streamed: number }> {
  const clock = new FakeClock();
  const budget = new RateBudget({ clock, random: () => 0.5 });
  const bulk = stream(budget, { ...deletion, priority }, 50);
  let refused = 0;
  for (let t = 1; t <= 10_000; t += 1) {
    clock.advance(1);
    await settle();
    if (t % 37 === 0 && !budget.reserve(rollout).ok) refused += 1;
  }
  budget.close();
  return { refused, streamed: bulk.admitted };
}

describe('bulk priority in the shared budget', () => {
  it('a bulk deletion stream never makes a rollout call wait (and without the priority it would)', async () => {
    const withPriority = await rolloutRefusals('bulk');
    expect(withPriority.refused).toBe(0);
    const without = await rolloutRefusals('interactive');
    expect(without.refused).toBeGreaterThan(100);
  });

  it('costs the stream no rate: what the rollouts leave, it gets', async () => {
    const { streamed } = await rolloutRefusals('bulk');
    // 1000 / 10 s row, shaped for a 10.2 s span; 270 rollout calls in 10 s took their share.
    const rolloutCalls = Math.floor(10_000 / 37);
    const allowed = ((1000 - 3 + 1) / 10_200) * 10_000;
    expect(streamed + rolloutCalls).toBeGreaterThan(allowed - 5);
  });

  it('queues an interactive waiter ahead of bulk waiters that came first', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget({ clock, overrides: { default: { count: 10, windowSeconds: 1 } } });
    const order: string[] = [];
    while (budget.reserve(rollout).ok) order.push('drain');
    order.length = 0;
    const waits = [
      budget.acquire(deletion).then(() => order.push('bulk-1')),
      budget.acquire(deletion).then(() => order.push('bulk-2')),
      budget.acquire(rollout).then(() => order.push('rollout')),
    ];
    for (let i = 0; i < 20 && order.length < 3; i += 1) {
      clock.advance(110);
      await settle();
    }
    await Promise.all(waits);
    expect(order).toEqual(['rollout', 'bulk-1', 'bulk-2']);
  });

  it('lets bulk work through a bucket of capacity one (run query: 15 per 10 s)', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget({ clock });
    const query: BudgetRequest = {
      method: 'POST',
      path: '/api/v1/runs/query',
      credentialFingerprint: 'fp',
      priority: 'bulk',
    };
    const counter = stream(budget, query, 5);
    for (let t = 0; t < 21_000; t += 100) {
      clock.advance(100);
      await settle();
    }
    budget.close();
    // 15 per 10.2 s span: about 30 in 21 s.
    expect(counter.admitted).toBeGreaterThanOrEqual(28);
    expect(counter.admitted).toBeLessThanOrEqual(31);
  });
});
