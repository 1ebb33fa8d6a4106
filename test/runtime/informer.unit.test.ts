// An object the operator cannot understand must hurt only itself: an index function or an
// event handler that throws on it never stops the cache from following the server.
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import { Informer } from '../../src/runtime/manager/informer.js';
import { FakeApi } from './support/fake-api.js';
import { FakeClock, flush } from './support/fake-clock.js';

const running: AbortController[] = [];
afterEach(() => running.splice(0).forEach((c) => c.abort()));

function colorOf(object: KubeObject): string {
  const color = (object.spec as { color?: string } | undefined)?.color;
  if (color === undefined) throw new TypeError('spec.color is required');
  return color;
}

describe('Informer', () => {
  it('keeps following the server when an index function or a handler throws on one object', async () => {
    const api = new FakeApi();
    api.upsert('broken', {});
    api.upsert('red', { color: 'red' });
    const informer = new Informer<KubeObject>({
      sources: [{ source: api, inScope: () => true }],
      indexers: { byColor: (object) => [colorOf(object)] },
      clock: new FakeClock(),
      random: () => 0,
    });
    const seen: string[] = [];
    informer.addHandler({
      onAdd: (object) => {
        colorOf(object);
      },
      onUpdate: (_old, object) => {
        colorOf(object);
      },
    });
    informer.addHandler({
      onAdd: (object) => seen.push(`add ${object.metadata.name ?? ''}`),
      onUpdate: (_old, object) => seen.push(`update ${object.metadata.name ?? ''}`),
      onDelete: (object) => seen.push(`delete ${object.metadata.name ?? ''}`),
    });
    const controller = new AbortController();
    running.push(controller);
    void informer.run(controller.signal);
    expect(await informer.waitForSync()).toBe(true);
    await flush();
    api.upsert('broken', {});
    api.upsert('blue', { color: 'blue' });
    api.remove('broken');
    await flush();
    expect(seen).toEqual(['add broken', 'add red', 'update broken', 'add blue', 'delete broken']);
    expect(informer.store.keys().sort()).toEqual(['default/blue', 'default/red']);
    expect(informer.store.byIndex('byColor', 'blue').map((o) => o.metadata.name)).toEqual(['blue']);
    expect(api.listCalls).toBe(1);
    expect(informer.health().every((h) => !h.stuck && h.consecutiveFailures === 0)).toBe(true);
  });
});

describe('Informer.waitForSync', () => {
  it('adds one listener to the caller’s signal however many reflectors wait, and removes it when done', async () => {
    // Twelve namespaces, none synced (never run): twelve reflectors wait on one signal.
    const informer = new Informer<KubeObject>({
      sources: Array.from({ length: 12 }, () => ({ source: new FakeApi(), inScope: () => true })),
      clock: new FakeClock(),
      random: () => 0,
    });
    const caller = new AbortController();
    const waits = [informer.waitForSync(caller.signal), informer.waitForSync(caller.signal)];
    await flush();
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(2);
    caller.abort();
    expect(await Promise.all(waits)).toEqual([false, false]);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });
});
