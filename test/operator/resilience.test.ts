// The operator under the faults its users will meet: watches that drop or expire, a 429
// storm from the control plane, and two replicas of which only the leader may act.
import { afterEach, describe, expect, it } from 'vitest';
import { Stack, containerAgent, isReady } from './harness.js';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function requestTotal(registry: { getMetricsAsJSON(): Promise<unknown> }): Promise<number> {
  const metrics = (await registry.getMetricsAsJSON()) as Array<{
    name: string;
    values?: Array<{ value: number }>;
  }>;
  const requests = metrics.find((m) => m.name === 'agent_operator_controlplane_requests_total');
  return (requests?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}

describe('operator resilience', () => {
  it('loses no change when watches drop and expire (410) while objects are created and changed', async () => {
    stack = await Stack.start({ operator: { resyncPeriodMs: 60_000 } });
    const s = stack;
    const listenerId = await s.listenerId();
    const names = Array.from({ length: 6 }, (_, i) => `watched-${i}`);
    for (const [index, name] of names.entries()) {
      await s.apply(containerAgent(name, listenerId));
      if (index % 2 === 0) s.kube.faults.dropWatches();
      else s.kube.faults.expireWatches(2);
    }
    for (const name of names) await s.waitFor(name, isReady, 'Ready');
    // Changes made while the watch is down must still be seen (relist after 410).
    s.kube.faults.expireWatches(3);
    s.kube.faults.dropWatches();
    for (const name of names)
      await s.patchSpec(name, { sourceRevisionConfig: { imageUri: 'registry.example/agent:2' } });
    s.kube.faults.clear();
    await s.waitUntil(async () => {
      const deployments = await s.deployments();
      return (
        deployments.length === names.length &&
        deployments.every((d) => d.source_revision_config.image_uri === 'registry.example/agent:2')
      );
    }, 'every deployment runs image 2');
    for (const name of names)
      await s.waitFor(name, (o) => isReady(o) && o.metadata.generation === 2, 'Ready at generation 2');
    expect((await s.deployments()).map((d) => d.name).sort()).toEqual([...names].sort());
  });

  it('rides out a 429 storm and still creates exactly one deployment per object', async () => {
    stack = await Stack.start();
    const s = stack;
    const listenerId = await s.listenerId();
    await s.admin('POST', '/faults', { status: 429, rate: 0.6, retryAfterSeconds: 1 });
    const names = Array.from({ length: 5 }, (_, i) => `stormy-${i}`);
    for (const name of names) await s.apply(containerAgent(name, listenerId));
    // The storm lasts two seconds (a fault's duration, not a wait for something), and until
    // the operator has met it at least once.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const throttledSoFar = async (): Promise<number> =>
      (await s.admin<{ throttled: number }>('GET', '/stats')).throttled;
    await s.waitUntil(async () => (await throttledSoFar()) > 0, 'the operator meets the storm');
    await s.admin('DELETE', '/faults');
    for (const name of names) await s.waitFor(name, isReady, 'Ready after the storm', 30_000);
    const deployments = await s.deployments();
    expect(deployments.map((d) => d.name).sort()).toEqual([...names].sort());
    expect(await throttledSoFar()).toBeGreaterThan(0);
  });

  it('lets only the leader act, and hands over when it stops', async () => {
    stack = await Stack.start({ withoutOperator: true });
    const s = stack;
    const listenerId = await s.listenerId();
    const leader = await s.startOperator({ leaderElect: true }, 'replica-a');
    await s.apply(containerAgent('first', listenerId));
    await s.waitFor('first', isReady, 'Ready under the first leader');
    const standby = await s.startOperator({ leaderElect: true }, 'replica-b');
    await s.apply(containerAgent('second', listenerId));
    await s.waitFor('second', isReady, 'Ready under the first leader');
    // The standby is running and contending (it has read the lease and seen who holds it),
    // so its zero requests are a choice, not a replica that has not started yet.
    await s.waitUntil(() => {
      const health = standby.manager.health();
      return Promise.resolve(health.role === 'standby' && health.leader === 'replica-a');
    }, 'the standby sees replica-a lead');
    expect(await requestTotal(standby.registry)).toBe(0);
    expect(await requestTotal(leader.registry)).toBeGreaterThan(0);
    // A clean shutdown releases the lease: the standby takes over at once, not after 15 s.
    await leader.stop();
    await s.apply(containerAgent('third', listenerId));
    await s.waitFor('third', isReady, 'Ready under the new leader', 10_000);
    expect(await requestTotal(standby.registry)).toBeGreaterThan(0);
    expect((await s.deployments()).map((d) => d.name).sort()).toEqual(['first', 'second', 'third']);
  });
});
