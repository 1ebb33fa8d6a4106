// Leader election on a real coordination.k8s.io/v1 Lease in the emulator: hand-over when the
// leader shuts down (released, so at once), take-over after a crashed leader's lease expires,
// and the Lease times on the wire carry exactly 6 fractional digits.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../../src/runtime/controller/controller.js';
import type { KubeClient } from '../../../src/runtime/kube/client.js';
import type { KubeObject } from '../../../src/runtime/kube/objects.js';
import { LeaderElector } from '../../../src/runtime/leaderelection/leader-elector.js';
import { KubeLeaseStore } from '../../../src/runtime/leaderelection/lease-store.js';
import { Informer } from '../../../src/runtime/manager/informer.js';
import { Manager, watchOf } from '../../../src/runtime/manager/manager.js';
import type { KubeEmulator } from '../../../src/sim/kube/index.js';
import { CONFIGMAPS, clientFor, eventually, startEmulator } from './emulator-support.js';
import { awaitChange } from '../../../src/runtime/reconcile/result.js';

let emulator: KubeEmulator;
let api: { client: KubeClient; close: () => void };

beforeAll(async () => {
  emulator = await startEmulator();
  api = clientFor(emulator);
});

afterAll(async () => {
  api.close();
  await emulator.close();
});

const TIMINGS = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 250 };

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  renewTime?: string;
  acquireTime?: string;
  leaseTransitions?: number;
}

async function leaseSpec(name: string): Promise<LeaseSpec> {
  // Read the raw JSON from the server, not through the runtime's parser.
  const response = await fetch(
    `${emulator.url}/apis/coordination.k8s.io/v1/namespaces/default/leases/${name}`,
  );
  const body = (await response.json()) as { spec?: LeaseSpec };
  return body.spec ?? {};
}

function replica(identity: string, leaseName: string, timings = TIMINGS) {
  const reconciled: string[] = [];
  const registry = new Registry();
  const informer = Informer.forResource<KubeObject>(api.client, {
    type: CONFIGMAPS,
    namespaces: ['kube-system'],
  });
  const controller = new Controller({
    name: 'handover',
    registry,
    reconcile: (key) => {
      reconciled.push(key);
      return Promise.resolve(awaitChange);
    },
  });
  const manager = new Manager({
    client: api.client,
    registry,
    drainTimeoutMs: 1_000,
    leaderElection: { namespace: 'default', leaseName, identity, ...timings },
  });
  manager.addController(controller, [watchOf(informer)]);
  return { manager, controller, reconciled, registry };
}

describe('Leader election over the emulator', () => {
  it('hands over between two managers at once when the leader shuts down', async () => {
    await api.client.create(CONFIGMAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'work', namespace: 'kube-system' },
    });
    // A 60 s lease: the standby can take over within the test only if the leader releases it.
    const long = { ...TIMINGS, leaseDurationMs: 60_000 };
    const first = replica('first', 'handover-lock', long);
    void first.manager.start();
    expect(await eventually(() => first.manager.health().role === 'leader', 5_000)).toBe(true);
    const second = replica('second', 'handover-lock', long);
    void second.manager.start();
    expect(await eventually(() => second.manager.health().ready, 5_000)).toBe(true);
    expect(second.manager.health()).toMatchObject({ role: 'standby', leader: 'first' });
    expect(first.reconciled).toContain('kube-system/work');
    expect(second.reconciled).toEqual([]);

    const spec = await leaseSpec('handover-lock');
    expect(spec.holderIdentity).toBe('first');
    expect(spec.renewTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(spec.acquireTime).toMatch(/\.\d{6}Z$/);

    await first.manager.stop();
    const released = await leaseSpec('handover-lock');
    // Released on shutdown, unless the standby was quicker still.
    expect(['', undefined, 'second']).toContain(released.holderIdentity);
    expect(await eventually(() => second.manager.health().role === 'leader', 5_000)).toBe(true);
    expect(second.reconciled).toContain('kube-system/work');
    expect(await first.registry.metrics()).toContain('leader_election_master_status{name="handover-lock"} 0');
    expect(await second.registry.metrics()).toContain(
      'leader_election_master_status{name="handover-lock"} 1',
    );
    expect((await leaseSpec('handover-lock')).leaseTransitions).toBe(1);
    await second.manager.stop();
  });

  it('takes over after a crashed leader lease expires', async () => {
    const store = new KubeLeaseStore(api.client, 'default', 'crash-lock');
    let crashedLeading = false;
    // A leader that "crashes": it stops without releasing the lease.
    const crashed = new LeaderElector({
      store,
      identity: 'crashed',
      name: 'crash-lock',
      ...TIMINGS,
      releaseOnCancel: false,
      onStartedLeading: () => {
        crashedLeading = true;
      },
      onStoppedLeading: () => undefined,
    });
    const crash = new AbortController();
    const crashedRun = crashed.run(crash.signal);
    expect(await eventually(() => crashedLeading, 5_000)).toBe(true);
    crash.abort();
    await crashedRun;
    expect((await leaseSpec('crash-lock')).holderIdentity).toBe('crashed');

    const successor = replica('successor', 'crash-lock');
    const started = Date.now();
    void successor.manager.start();
    expect(await eventually(() => successor.manager.health().role === 'leader', 10_000)).toBe(true);
    // It waited for the lease to expire by its own clock, not less.
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMINGS.leaseDurationMs - 100);
    const spec = await leaseSpec('crash-lock');
    expect(spec).toMatchObject({ holderIdentity: 'successor', leaseTransitions: 1, leaseDurationSeconds: 3 });
    await successor.manager.stop();
  });
});
