import { afterEach, describe, expect, it } from 'vitest';
import { IndexedStore } from '../../src/runtime/cache/store.js';
import { KubeApiError } from '../../src/runtime/kube/errors.js';
import { objectKey, type KubeObject } from '../../src/runtime/kube/objects.js';
import { Reflector } from '../../src/runtime/reflector/reflector.js';
import { FakeApi } from './support/fake-api.js';
import { FakeClock, flush } from './support/fake-clock.js';

interface Seen {
  kind: 'add' | 'update' | 'delete';
  name: string;
  rv: string;
}

const running: AbortController[] = [];
afterEach(() => running.splice(0).forEach((c) => c.abort()));

function setup(
  options: { watchdogMs?: number; resyncPeriodMs?: number; onResync?: (o: KubeObject[]) => void } = {},
) {
  const clock = new FakeClock();
  const api = new FakeApi();
  const store = new IndexedStore<KubeObject>({
    byColor: (o) => [String((o.spec as { color?: string } | undefined)?.color ?? 'none')],
  });
  const seen: Seen[] = [];
  const note = (kind: Seen['kind'], o: KubeObject): void => {
    seen.push({ kind, name: o.metadata.name ?? '', rv: o.metadata.resourceVersion ?? '' });
  };
  const reflector = new Reflector({
    source: api,
    store,
    clock,
    random: () => 0,
    pageSize: 2,
    watchdogMs: options.watchdogMs ?? 60_000,
    resyncPeriodMs: options.resyncPeriodMs,
    onResync: options.onResync,
    handler: {
      onAdd: (o) => note('add', o),
      onUpdate: (_old, o) => note('update', o),
      onDelete: (o) => note('delete', o),
    },
  });
  const controller = new AbortController();
  running.push(controller);
  const done = reflector.run(controller.signal);
  const cacheState = (): Map<string, string> =>
    new Map(store.list().map((o) => [objectKey(o), o.metadata.resourceVersion ?? '']));
  return { clock, api, store, seen, reflector, controller, done, cacheState };
}

describe('Reflector', () => {
  it('lists in pages, then watches from the list version with bookmarks and a 5–10 min timeout', async () => {
    const api = new FakeApi();
    for (const name of ['a', 'b', 'c', 'd', 'e']) api.upsert(name);
    const clock = new FakeClock();
    const store = new IndexedStore<KubeObject>();
    const reflector = new Reflector({
      source: api,
      store,
      clock,
      handler: {},
      pageSize: 2,
      random: () => 0.5,
    });
    const controller = new AbortController();
    running.push(controller);
    void reflector.run(controller.signal);
    expect(await reflector.waitForSync()).toBe(true);
    expect(api.listCalls).toBe(3);
    expect(store.size).toBe(5);
    await flush();
    expect(api.watchCalls).toHaveLength(1);
    expect(api.watchCalls[0]?.resourceVersion).toBe('6');
    expect(api.watchCalls[0]?.timeoutSeconds).toBe(450);
  });

  it('applies watch events to the cache and its indexes and tells the handler', async () => {
    const { api, store, seen, reflector } = setup();
    await reflector.waitForSync();
    await flush();
    api.upsert('a', { color: 'red' });
    api.upsert('b', { color: 'red' });
    api.upsert('a', { color: 'blue' });
    api.remove('b');
    await flush();
    expect(seen.map((s) => `${s.kind}:${s.name}`)).toEqual(['add:a', 'add:b', 'update:a', 'delete:b']);
    expect(store.byIndex('byColor', 'blue').map((o) => o.metadata.name)).toEqual(['a']);
    expect(store.byIndex('byColor', 'red')).toEqual([]);
    expect(() => store.byIndex('nope', 'x')).toThrow(/index "nope" is not defined/);
  });

  it('cached objects are frozen so that no reader can corrupt the cache', async () => {
    const { api, store, reflector } = setup();
    api.upsert('a', { color: 'red' });
    await reflector.waitForSync();
    const cached = store.get('default/a');
    expect(() => {
      (cached?.spec as { color: string }).color = 'green';
    }).toThrow(TypeError);
  });

  it('relists on 410 Gone and emits deletes for objects gone and updates for changed ones', async () => {
    const { api, clock, seen, reflector, cacheState } = setup();
    api.upsert('a');
    api.upsert('b');
    api.upsert('c');
    await reflector.waitForSync();
    await flush();
    seen.length = 0;
    // The connection breaks; while the reflector backs off, changes happen and history is compacted.
    api.dropWatches();
    await flush();
    api.remove('a');
    api.upsert('b', { changed: true });
    api.upsert('d');
    api.compact();
    const listsBefore = api.listCalls;
    await clock.advance(800);
    expect(api.listCalls).toBeGreaterThan(listsBefore);
    expect(seen.map((s) => `${s.kind}:${s.name}`).sort()).toEqual(['add:d', 'delete:a', 'update:b']);
    expect(cacheState()).toEqual(api.snapshot());
    expect(reflector.health().relists).toBe(2);
  });

  it('relists when the watch stream carries an ERROR event with code 410', async () => {
    const { api, reflector, cacheState } = setup();
    api.upsert('a');
    await reflector.waitForSync();
    await flush();
    api.endWatches();
    api.expireAsEvent = 1;
    api.upsert('b');
    await flush();
    expect(reflector.health().relists).toBe(2);
    expect(cacheState()).toEqual(api.snapshot());
  });

  it('backs off exponentially (capped) on other errors and resumes the watch without a relist', async () => {
    const { api, clock, reflector, cacheState } = setup();
    await reflector.waitForSync();
    await flush();
    const error = new KubeApiError(503, 'ServiceUnavailable', 'unavailable');
    api.watchFailures.push(error, error, error, error, error, error, error, error);
    api.dropWatches();
    await flush();
    const callTimes: number[] = [];
    const start = clock.now();
    let calls = api.watchCalls.length;
    for (let i = 0; i < 2000 && callTimes.length < 9; i += 1) {
      await clock.advance(100);
      if (api.watchCalls.length > calls) {
        calls = api.watchCalls.length;
        callTimes.push(clock.now() - start);
      }
    }
    const gaps = callTimes.map((t, i) => t - (callTimes[i - 1] ?? 0));
    // 800 ms doubling, capped at 30 s (jitter drawn as 0 here).
    expect(gaps.slice(0, 7)).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000]);
    expect(api.listCalls).toBe(1);
    expect(reflector.health().consecutiveFailures).toBeGreaterThan(0);
    api.upsert('z');
    await clock.advance(30_000);
    expect(cacheState()).toEqual(api.snapshot());
  });

  it('retries a failing list with backoff and reports not synced meanwhile', async () => {
    const clock = new FakeClock();
    const api = new FakeApi();
    api.listFailures.push(
      new KubeApiError(500, 'InternalError', 'boom'),
      new KubeApiError(429, 'TooManyRequests', 'slow down'),
    );
    const reflector = new Reflector({
      source: api,
      store: new IndexedStore(),
      clock,
      handler: {},
      random: () => 0,
    });
    const controller = new AbortController();
    running.push(controller);
    void reflector.run(controller.signal);
    await flush();
    expect(reflector.hasSynced).toBe(false);
    expect(reflector.health().lastError).toContain('boom');
    await clock.advance(800);
    expect(reflector.hasSynced).toBe(false);
    await clock.advance(1600);
    expect(reflector.hasSynced).toBe(true);
    expect(api.listCalls).toBe(3);
  });

  it('backs off when the list itself answers 410 instead of relisting in a tight loop', async () => {
    const clock = new FakeClock();
    const api = new FakeApi();
    const expired = new KubeApiError(410, 'Expired', 'continue token expired');
    api.listFailures.push(expired, expired, expired);
    const reflector = new Reflector({
      source: api,
      store: new IndexedStore(),
      clock,
      handler: {},
      random: () => 0,
    });
    const controller = new AbortController();
    running.push(controller);
    void reflector.run(controller.signal);
    await flush();
    expect(api.listCalls).toBe(1);
    await clock.advance(800);
    expect(api.listCalls).toBe(2);
    await clock.advance(1600 + 3200);
    expect(reflector.hasSynced).toBe(true);
  });

  it('bookmarks advance the version a restarted watch resumes from', async () => {
    const { api, reflector } = setup();
    api.upsert('a');
    await reflector.waitForSync();
    await flush();
    api.upsert('hidden'); // seen by the watch
    api.bookmark();
    await flush();
    expect(reflector.health().resourceVersion).toBe('3');
    api.endWatches();
    await flush();
    expect(api.watchCalls.at(-1)?.resourceVersion).toBe('3');
  });

  it('restarts a silent watch after the watchdog period, and bookmarks keep a quiet watch alive', async () => {
    const { api, clock, reflector, cacheState } = setup({ watchdogMs: 10_000 });
    await reflector.waitForSync();
    await flush();
    // Bookmarks every 6 s: quiet but alive, so no restart.
    for (let i = 0; i < 5; i += 1) {
      await clock.advance(6_000);
      api.bookmark();
    }
    expect(api.watchCalls).toHaveLength(1);
    // Now the connection goes half-open: nothing arrives, not even bookmarks.
    api.stallNewWatches = true;
    api.endWatches();
    await flush();
    expect(api.watchCalls).toHaveLength(2);
    api.stallNewWatches = false;
    api.upsert('late');
    await clock.advance(9_999);
    expect(cacheState().has('default/late')).toBe(false);
    await clock.advance(1);
    expect(api.watchCalls).toHaveLength(3);
    expect(cacheState()).toEqual(api.snapshot());
    expect(reflector.health().stuck).toBe(false);
  });

  it('reports itself stuck when no list or watch has progressed for twice the watchdog period', async () => {
    const clock = new FakeClock();
    const api = new FakeApi();
    const forever = new KubeApiError(0, 'NetworkError', 'connection refused');
    api.listFailures.push(...Array.from({ length: 100 }, () => forever));
    const reflector = new Reflector({
      source: api,
      store: new IndexedStore(),
      clock,
      handler: {},
      watchdogMs: 10_000,
      random: () => 0,
    });
    const controller = new AbortController();
    running.push(controller);
    void reflector.run(controller.signal);
    await clock.advance(19_000);
    expect(reflector.health().stuck).toBe(false);
    await clock.advance(2_000);
    expect(reflector.health().stuck).toBe(true);
    expect(reflector.health().lastError).toContain('connection refused');
  });

  it('reports itself stuck within a minute of failing without a success, whatever the watchdog', async () => {
    const clock = new FakeClock();
    const api = new FakeApi();
    const refused = new KubeApiError(0, 'NetworkError', 'connection refused');
    api.listFailures.push(...Array.from({ length: 100 }, () => refused));
    const reflector = new Reflector({
      source: api,
      store: new IndexedStore(),
      clock,
      handler: {},
      random: () => 0,
    });
    const controller = new AbortController();
    running.push(controller);
    void reflector.run(controller.signal);
    await clock.advance(59_000);
    expect(reflector.health().stuck).toBe(false);
    await clock.advance(2_000);
    expect(reflector.health().stuck).toBe(true);
    // The server comes back: the next list succeeds and the reflector is healthy again.
    api.listFailures.length = 0;
    await clock.advance(31_000);
    expect(reflector.hasSynced).toBe(true);
    expect(reflector.health().stuck).toBe(false);
  });

  it('calls the resync hook with every cached object each period', async () => {
    const batches: number[] = [];
    const { api, clock, reflector } = setup({
      resyncPeriodMs: 5_000,
      onResync: (objects) => batches.push(objects.length),
    });
    api.upsert('a');
    api.upsert('b');
    await reflector.waitForSync();
    await clock.advance(10_000);
    expect(batches).toEqual([2, 2]);
  });

  it('stops when its signal aborts, closing the watch', async () => {
    const { api, reflector, controller, done } = setup();
    await reflector.waitForSync();
    await flush();
    expect(api.openWatches).toBe(1);
    controller.abort();
    await done;
    expect(api.openWatches).toBe(0);
  });

  describe('a resource that may not be served (a CRD installed later)', () => {
    function absentSetup(prepare: (api: FakeApi) => void = () => {}) {
      const clock = new FakeClock();
      const api = new FakeApi();
      prepare(api);
      const store = new IndexedStore<KubeObject>();
      const added: string[] = [];
      const deleted: string[] = [];
      const reflector = new Reflector({
        source: api,
        store,
        clock,
        random: () => 0,
        mayBeAbsent: { recheckMs: 10_000 },
        handler: {
          onAdd: (o) => added.push(o.metadata.name ?? ''),
          onDelete: (o) => deleted.push(o.metadata.name ?? ''),
        },
      });
      const controller = new AbortController();
      running.push(controller);
      void reflector.run(controller.signal);
      return { clock, api, store, reflector, added, deleted };
    }
    const notFound = () =>
      new KubeApiError(404, 'NotFound', 'the server could not find the requested resource');

    it('a 404 is an answer: synced and empty at once, not stuck, and looked for again until served', async () => {
      const { clock, api, reflector, added } = absentSetup((api) => {
        api.listFailures = [notFound(), notFound()];
      });
      await flush();
      expect(reflector.hasSynced).toBe(true);
      expect(reflector.health()).toMatchObject({ synced: true, absent: true, stuck: false });
      expect(api.listCalls).toBe(1);
      await clock.advance(10_000);
      expect(api.listCalls).toBe(2);
      // The CRD arrives: the next look lists it and caches what it holds.
      api.upsert('late');
      await clock.advance(10_000);
      expect(added).toEqual(['late']);
      expect(reflector.health()).toMatchObject({ absent: false, synced: true });
      // It is watched from then on: a new object arrives without another list.
      const lists = api.listCalls;
      api.upsert('later');
      await flush();
      expect(added).toEqual(['late', 'later']);
      expect(api.listCalls).toBe(lists);
    });

    it('any other error is no answer: not synced, backing off, as for every resource', async () => {
      const { reflector } = absentSetup((api) => {
        api.listFailures = [new KubeApiError(503, 'ServiceUnavailable', 'starting')];
      });
      await flush();
      expect(reflector.hasSynced).toBe(false);
      expect(reflector.health().absent).toBe(false);
    });

    it('a CRD removed later empties the cache, deleting what it held', async () => {
      const { clock, api, store, deleted } = absentSetup((api) => api.upsert('gone'));
      await flush();
      expect(store.list()).toHaveLength(1);
      // The CRD is deleted: the watch breaks, the resumed watch is Gone, the relist is a 404.
      api.listFailures = [notFound()];
      api.watchFailures = [new KubeApiError(410, 'Gone', 'too old resource version')];
      api.dropWatches();
      // Less than the recheck interval: what is seen is the 404's answer, not a later list.
      await clock.advance(5_000);
      expect(deleted).toEqual(['gone']);
      expect(store.list()).toEqual([]);
    });
  });
});
