import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { Controller } from '../../src/runtime/controller/controller.js';
import { KubeApiError } from '../../src/runtime/kube/errors.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import { Informer } from '../../src/runtime/manager/informer.js';
import { Manager, watchOf, type Watch } from '../../src/runtime/manager/manager.js';
import { FakeApi } from './support/fake-api.js';
import { FakeClock, flush } from './support/fake-clock.js';
import { FakeLease } from './support/fake-lease-store.js';
import { awaitChange } from '../../src/runtime/reconcile/result.js';

const managers: Manager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.stop()));
});

function replica(api: FakeApi, lease: FakeLease | undefined, clock: FakeClock, identity: string) {
  const reconciled: string[] = [];
  const informer = new Informer({ sources: [{ source: api, inScope: () => true }], clock, random: () => 0 });
  const controller = new Controller({
    name: `widgets-${identity}`,
    clock,
    reconcile: (key) => {
      reconciled.push(key);
      return Promise.resolve(awaitChange);
    },
  });
  const registry = new Registry();
  const manager = new Manager({
    clock,
    registry,
    drainTimeoutMs: 1_000,
    ...(lease
      ? {
          leaderElection: {
            namespace: 'default',
            leaseName: 'widgets-lock',
            identity,
            store: lease.storeFor(),
          },
        }
      : {}),
  });
  manager.addController(controller, [watchOf(informer)]);
  managers.push(manager);
  return { manager, controller, reconciled, registry };
}

/** A manager without leader election whose controller records the keys it reconciles, started. */
async function startRecording(
  api: FakeApi,
  clock: FakeClock,
  name: string,
  watchFor: (informer: Informer<KubeObject>) => Watch,
): Promise<string[]> {
  const reconciled: string[] = [];
  const informer = new Informer({
    sources: [{ source: api, inScope: () => true }],
    clock,
    random: () => 0,
  });
  const controller = new Controller({
    name,
    clock,
    reconcile: (key) => {
      reconciled.push(key);
      return Promise.resolve(awaitChange);
    },
  });
  const manager = new Manager({ clock, registry: new Registry(), drainTimeoutMs: 1_000 });
  manager.addController(controller, [watchFor(informer)]);
  managers.push(manager);
  void manager.start();
  await flush();
  return reconciled;
}

describe('Manager', () => {
  it('without leader election starts controllers once caches sync and hands them every cached key', async () => {
    const clock = new FakeClock();
    const api = new FakeApi();
    api.upsert('a');
    api.upsert('b');
    const { manager, reconciled } = replica(api, undefined, clock, 'solo');
    expect(manager.health().ready).toBe(false);
    void manager.start();
    await flush();
    expect(reconciled.sort()).toEqual(['default/a', 'default/b']);
    api.upsert('c');
    await flush();
    expect(reconciled).toContain('default/c');
    const health = manager.health();
    expect(health).toMatchObject({ ready: true, live: true, role: 'single', problems: [] });
    expect(health.controllers[0]).toMatchObject({ running: true, queueDepth: 0 });
  });

  it('serves an object that changes after the start before the rest of the initial list', async () => {
    const clock = new FakeClock();
    const api = new FakeApi();
    for (let i = 0; i < 5; i += 1) api.upsert(`settled-${i}`);
    const reconciled: string[] = [];
    const informer = new Informer({
      sources: [{ source: api, inScope: () => true }],
      clock,
      random: () => 0,
    });
    let release: () => void = () => {};
    const controller = new Controller({
      name: 'widgets-priority',
      clock,
      reconcile: async (key) => {
        reconciled.push(key);
        // The first pass holds the only worker until the new object has arrived.
        if (reconciled.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return awaitChange;
      },
    });
    const manager = new Manager({ clock, registry: new Registry(), drainTimeoutMs: 1_000 });
    manager.addController(controller, [watchOf(informer)]);
    managers.push(manager);
    void manager.start();
    await flush();
    expect(reconciled).toEqual(['default/settled-0']);
    api.upsert('new');
    await flush();
    release();
    await flush();
    expect(reconciled.slice(0, 2)).toEqual(['default/settled-0', 'default/new']);
    expect(reconciled).toHaveLength(6);
  });

  it('serves the objects the watch calls urgent at the start before the settled ones', async () => {
    const clock = new FakeClock();
    const api = new FakeApi();
    // Listed in name order: the edited object comes last.
    for (const name of ['settled-0', 'settled-1', 'settled-2', 'settled-3', 'z-edited']) api.upsert(name);
    const urgent = (object: KubeObject) => object.metadata.name === 'z-edited';
    const reconciled = await startRecording(api, clock, 'widgets-urgent', (informer) =>
      watchOf(informer, undefined, undefined, urgent),
    );
    // The idle worker takes the first key listed at once; the edited one is next.
    expect(reconciled).toEqual([
      'default/settled-0',
      'default/z-edited',
      'default/settled-1',
      'default/settled-2',
      'default/settled-3',
    ]);
  });

  it('a watch with a delay asks for one look that long after the first of its events, however many follow', async () => {
    const clock = new FakeClock();
    const api = new FakeApi();
    // Every widget is counted by one key, as AgentDeployments are by their connection.
    const reconciled = await startRecording(api, clock, 'widget-counter', (informer) => ({
      ...watchOf(informer, () => ['counter']),
      delayMs: 1_000,
    }));
    await clock.advance(1_000);
    reconciled.length = 0;

    api.upsert('a');
    await clock.advance(300);
    api.upsert('b');
    await clock.advance(300);
    api.upsert('c');
    await clock.advance(399);
    expect(reconciled).toEqual([]);
    await clock.advance(1);
    expect(reconciled).toEqual(['counter']);
    await clock.advance(5_000);
    expect(reconciled).toEqual(['counter']);
  });

  it('runs caches on the standby but controllers only on the leader, and hands over on stop', async () => {
    const clock = new FakeClock();
    const api = new FakeApi();
    const lease = new FakeLease();
    api.upsert('a');
    const first = replica(api, lease, clock, 'first');
    void first.manager.start();
    await flush();
    const second = replica(api, lease, clock, 'second');
    void second.manager.start();
    await clock.advance(4_000);
    expect(first.manager.health().role).toBe('leader');
    expect(second.manager.health()).toMatchObject({ role: 'standby', ready: true, leader: 'first' });
    expect(first.reconciled).toEqual(['default/a']);
    expect(second.reconciled).toEqual([]);
    expect(second.controller.running).toBe(false);

    await first.manager.stop();
    expect(first.manager.health().role).toBe('stopped');
    expect(await first.registry.metrics()).toContain('leader_election_master_status{name="widgets-lock"} 0');
    // Released, so the standby takes over on its next try, not after the 15 s lease.
    await clock.advance(2_400);
    expect(second.manager.health().role).toBe('leader');
    expect(second.reconciled).toEqual(['default/a']);
  });

  it('stops the controllers when the lease is lost, and restarts them when it is won back', async () => {
    const clock = new FakeClock();
    const api = new FakeApi();
    const lease = new FakeLease();
    api.upsert('a');
    const only = replica(api, lease, clock, 'only');
    void only.manager.start();
    await flush();
    expect(only.controller.running).toBe(true);
    lease.unreachable = true;
    await clock.advance(10_000);
    expect(only.controller.running).toBe(false);
    expect(only.manager.health().role).toBe('standby');
    lease.unreachable = false;
    await clock.advance(2_400);
    expect(only.controller.running).toBe(true);
    expect(only.reconciled).toEqual(['default/a', 'default/a']);
  });

  it('starts each controller when its own caches synced: a cache that cannot sync holds back only its controller', async () => {
    const clock = new FakeClock();
    const healthy = new FakeApi();
    const failing = new FakeApi();
    healthy.upsert('a');
    // Every list of the other resource fails (an API server failing it): that cache never syncs.
    failing.listFailures = Array.from(
      { length: 1_000 },
      () => new KubeApiError(503, 'ServiceUnavailable', 'down'),
    );
    const informerOf = (api: FakeApi) =>
      new Informer({ sources: [{ source: api, inScope: () => true }], clock, random: () => 0 });
    const reconciled: string[] = [];
    const controllerOf = (name: string) =>
      new Controller({
        name,
        clock,
        reconcile: (key) => {
          reconciled.push(`${name} ${key}`);
          return Promise.resolve(awaitChange);
        },
      });
    const manager = new Manager({ clock, drainTimeoutMs: 1_000 });
    managers.push(manager);
    manager.addController(controllerOf('healthy'), [watchOf(informerOf(healthy))]);
    manager.addController(controllerOf('blocked'), [watchOf(informerOf(failing))]);
    void manager.start();
    await flush();
    expect(reconciled).toEqual(['healthy default/a']);
    const health = manager.health();
    expect(health.controllers.map((c) => `${c.name} ${String(c.running)}`)).toEqual([
      'healthy true',
      'blocked false',
    ]);
    expect(health.ready).toBe(false);
  });
});
