// A manager with one controller over ConfigMaps in the emulator: while a writer changes
// objects and faults are injected, no key is reconciled by two workers at once; once quiet,
// an idempotent reconcile that writes back to the object it watches settles instead of
// hot-looping, and a key that always fails backs off instead of spinning.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../../src/runtime/controller/controller.js';
import { EventRecorder, referenceTo } from '../../../src/runtime/events/recorder.js';
import type { KubeClient } from '../../../src/runtime/kube/client.js';
import { splitObjectKey, type KubeObject } from '../../../src/runtime/kube/objects.js';
import { Informer } from '../../../src/runtime/manager/informer.js';
import { Manager, watchOf } from '../../../src/runtime/manager/manager.js';
import type { KubeEmulator } from '../../../src/sim/kube/index.js';
import { CONFIGMAPS, clientFor, delay, eventually, startEmulator } from './emulator-support.js';
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

const NAMESPACE = 'default';
const EVENTS = { group: 'events.k8s.io', version: 'v1', plural: 'events' };

function configMap(name: string, value: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE }, data: { value } };
}

describe('Controller over the emulator', () => {
  it('never reconciles one key twice at once, settles without a hot loop, and backs off a failing key', async () => {
    const informer = Informer.forResource<KubeObject>(api.client, {
      type: CONFIGMAPS,
      namespaces: [NAMESPACE],
      watchdogMs: 5_000,
      backoff: { initialMs: 20, maxMs: 500 },
    });
    const inFlight = new Set<string>();
    let overlaps = 0;
    const counts = new Map<string, number>();
    const registry = new Registry();
    const controller = new Controller({
      name: 'mirror',
      maxConcurrentReconciles: 4,
      registry,
      reconcile: async (key) => {
        if (inFlight.has(key)) overlaps += 1;
        inFlight.add(key);
        counts.set(key, (counts.get(key) ?? 0) + 1);
        try {
          const { name } = splitObjectKey(key);
          if (name === 'poison') throw new Error('this one always fails');
          const cached = informer.store.get(key);
          if (!cached) return awaitChange;
          await delay(Math.random() * 10);
          const value = (cached.data as Record<string, string> | undefined)?.value ?? '';
          // Idempotent: write only when the mirror annotation differs from the data.
          if (cached.metadata.annotations?.mirrored !== value) {
            await api.client.mergePatch(CONFIGMAPS, NAMESPACE, name, {
              metadata: { annotations: { mirrored: value } },
            });
          }
          return awaitChange;
        } finally {
          inFlight.delete(key);
        }
      },
    });
    const manager = new Manager({ client: api.client, registry, drainTimeoutMs: 2_000 });
    manager.addController(controller, [watchOf(informer)]);
    void manager.start();

    await api.client.create(CONFIGMAPS, configMap('poison', 'x'));
    for (let round = 0; round < 6; round += 1) {
      if (round === 3) emulator.faults.failRequests({ rate: 0.2, statuses: [500, 503] });
      await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const name = `m${i}`;
          try {
            if (round === 0) await api.client.create(CONFIGMAPS, configMap(name, `${round}`));
            else await api.client.mergePatch(CONFIGMAPS, NAMESPACE, name, { data: { value: `${round}` } });
          } catch {
            // an injected failure: the next round writes this object again
          }
        }),
      );
      await delay(60);
    }
    emulator.faults.clear();
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api.client.mergePatch(CONFIGMAPS, NAMESPACE, `m${i}`, { data: { value: 'final' } }),
      ),
    );

    const settled = await eventually(async () => {
      const list = await api.client.list(CONFIGMAPS, { namespace: NAMESPACE });
      return list.items
        .filter((o) => o.metadata.name?.startsWith('m'))
        .every((o) => o.metadata.annotations?.mirrored === 'final');
    }, 15_000);
    expect(settled).toBe(true);
    // The controller is idle once the informer holds every mirror write (each caused one more
    // look) and no key is queued or being reconciled.
    const gauge = async (name: string): Promise<number> => {
      const found = (await registry.getMetricsAsJSON()).find((metric) => metric.name === name);
      const values = (found?.values ?? []) as Array<{
        value: number;
        labels: Record<string, string | number>;
      }>;
      return values
        .filter((v) => v.labels['controller'] === 'mirror' || v.labels['name'] === 'mirror')
        .reduce((sum, v) => sum + v.value, 0);
    };
    const idle = async (): Promise<boolean> =>
      Array.from({ length: 8 }, (_, i) => informer.store.get(`${NAMESPACE}/m${i}`)).every(
        (o) => o?.metadata.annotations?.mirrored === 'final',
      ) &&
      (await gauge('workqueue_depth')) === 0 &&
      (await gauge('controller_runtime_active_workers')) === 0;
    expect(await eventually(idle, 5_000)).toBe(true);
    const before = new Map(counts);
    // Quiet: the watch keeps delivering (a bookmark a second), and nothing is reconciled for it.
    const heardAt = Date.now();
    expect(
      await eventually(
        () => informer.health().every((health) => (health.lastProgressAt ?? 0) > heardAt + 1_000),
        5_000,
      ),
    ).toBe(true);
    expect(await eventually(idle, 5_000)).toBe(true);
    for (let i = 0; i < 8; i += 1)
      expect(counts.get(`${NAMESPACE}/m${i}`)).toBe(before.get(`${NAMESPACE}/m${i}`));
    // The failing key backs off exponentially (5 ms doubling): a handful of tries, not thousands.
    const poisonTries = counts.get(`${NAMESPACE}/poison`) ?? 0;
    expect(poisonTries).toBeGreaterThan(3);
    expect(poisonTries).toBeLessThan(16);
    expect(overlaps).toBe(0);
    expect(await registry.metrics()).toMatch(
      /controller_runtime_reconcile_errors_total\{controller="mirror"\} \d+/,
    );
    expect(manager.health()).toMatchObject({ ready: true, live: true, role: 'single' });
    await manager.stop();
  });

  it('records events and counts repeats on one Event instead of creating more', async () => {
    const recorder = new EventRecorder({ client: api.client, component: 'runtime-test', instance: 'pod-1' });
    const object = await api.client.create(CONFIGMAPS, configMap('evented', 'v'));
    for (let i = 0; i < 3; i += 1)
      await recorder.record(referenceTo(object), 'Warning', 'SyncFailed', 'could not sync: quota exceeded');
    await recorder.record(referenceTo(object), 'Normal', 'Synced', 'synced');
    const events = await api.client.list(EVENTS, { namespace: NAMESPACE });
    const mine = events.items.filter(
      (e) => (e.regarding as { name?: string } | undefined)?.name === 'evented',
    );
    expect(mine).toHaveLength(2);
    const failed = mine.find((e) => e.reason === 'SyncFailed');
    expect(failed).toMatchObject({
      type: 'Warning',
      note: 'could not sync: quota exceeded',
      reportingController: 'runtime-test',
    });
    expect((failed?.series as { count?: number } | undefined)?.count).toBe(3);
    expect(String(failed?.eventTime)).toMatch(/\.\d{6}Z$/);
  });
});
