// Losing the lease stops every write in flight at once: the controllers' in-flight passes are
// aborted the moment the elector stops the work, not after the leader-only runnables have
// wound down (one of them may take its time), since another replica may already lead.
import { afterEach, describe, expect, it } from 'vitest';
import { Controller } from '../../src/runtime/controller/controller.js';
import { Informer } from '../../src/runtime/manager/informer.js';
import { Manager, watchOf } from '../../src/runtime/manager/manager.js';
import { FakeApi } from './support/fake-api.js';
import { FakeClock, flush } from './support/fake-clock.js';
import { FakeLease } from './support/fake-lease-store.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

describe('Manager: the lease lost', () => {
  it('aborts in-flight passes at once, even while a leader runnable is still stopping', async () => {
    const clock = new FakeClock();
    const api = new FakeApi();
    const lease = new FakeLease();
    api.upsert('a');
    const inFlight: AbortSignal[] = [];
    const informer = new Informer({ sources: [{ source: api, inScope: () => true }], clock, random: () => 0 });
    const controller = new Controller({
      name: 'widgets',
      clock,
      // A pass that is waiting on the control plane when the lease goes.
      reconcile: (_key, signal) => {
        inFlight.push(signal);
        return new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
        });
      },
    });
    const manager = new Manager({
      clock,
      drainTimeoutMs: 1_000,
      leaderElection: { namespace: 'default', leaseName: 'widgets-lock', identity: 'only', store: lease.storeFor() },
    });
    manager.addController(controller, [watchOf(informer)]);
    let releaseRunnable: () => void = () => undefined;
    manager.addLeaderRunnable({
      start: () => undefined,
      // Winds down slowly: its stop resolves only when the test says so.
      stop: () =>
        new Promise<void>((resolve) => {
          releaseRunnable = resolve;
        }),
    });
    void manager.start();
    cleanups.push(async () => {
      releaseRunnable();
      await manager.stop();
    });
    await flush();
    expect(inFlight).toHaveLength(1);
    expect(inFlight[0]?.aborted).toBe(false);

    lease.unreachable = true;
    await clock.advance(10_000);
    expect(manager.health().role).toBe('standby');
    expect(inFlight[0]?.aborted).toBe(true);
  });
});

describe('Manager.holdsLease', () => {
  it('is true without leader election, and follows the elector’s own-clock view with it', async () => {
    const clock = new FakeClock();
    expect(new Manager({ clock }).holdsLease()).toBe(true);
    const lease = new FakeLease();
    const manager = new Manager({
      clock,
      leaderElection: { namespace: 'default', leaseName: 'l', identity: 'only', store: lease.storeFor() },
    });
    expect(manager.holdsLease()).toBe(false);
    void manager.start();
    cleanups.push(() => manager.stop());
    await flush();
    expect(manager.holdsLease()).toBe(true);
    lease.unreachable = true;
    await clock.advance(10_000);
    expect(manager.holdsLease()).toBe(false);
  });
});
