// The reflector against the API server emulator under every injected fault, while a writer
// keeps creating, updating and deleting objects: once the faults stop, the cache and the
// state rebuilt from handler notifications both equal the server's state (no event lost).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IndexedStore } from '../../../src/runtime/cache/store.js';
import type { KubeClient } from '../../../src/runtime/kube/client.js';
import { isAlreadyExists, isNotFound } from '../../../src/runtime/kube/errors.js';
import { objectKey, type KubeObject } from '../../../src/runtime/kube/objects.js';
import { clientListWatch } from '../../../src/runtime/reflector/list-watch.js';
import { Reflector } from '../../../src/runtime/reflector/reflector.js';
import type { KubeEmulator } from '../../../src/sim/kube/index.js';
import { CONFIGMAPS, clientFor, delay, eventually, startEmulator } from './emulator-support.js';

let emulator: KubeEmulator;
let writer: { client: KubeClient; close: () => void };
let reader: { client: KubeClient; close: () => void };

beforeAll(async () => {
  emulator = await startEmulator();
  writer = clientFor(emulator);
  reader = clientFor(emulator);
});

afterAll(async () => {
  writer.close();
  reader.close();
  await emulator.close();
});

/** Random creates, updates and deletes of ConfigMaps named w0..w19 until stopped. */
function startWriter(client: KubeClient, namespace: string): { stop: () => Promise<number> } {
  let running = true;
  let writes = 0;
  const loop = (async () => {
    let n = 0;
    while (running) {
      n += 1;
      const name = `w${Math.floor(Math.random() * 20)}`;
      const roll = Math.random();
      try {
        if (roll < 0.45) {
          await client.create(CONFIGMAPS, {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name, namespace },
            data: { n: String(n) },
          });
        } else if (roll < 0.85) {
          await client.mergePatch(CONFIGMAPS, namespace, name, { data: { n: String(n) } });
        } else {
          await client.delete(CONFIGMAPS, namespace, name);
        }
        writes += 1;
      } catch (error) {
        // Injected 5xx/429, a restarting server, or a name that does not (or does) exist yet.
        if (!isAlreadyExists(error) && !isNotFound(error)) await delay(5);
      }
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return writes;
    },
  };
}

async function serverState(client: KubeClient, namespace: string): Promise<Map<string, string>> {
  const list = await client.listAll(CONFIGMAPS, { namespace });
  return new Map(list.items.map((o) => [objectKey(o), o.metadata.resourceVersion ?? '']));
}

function sorted(map: Map<string, string>): Array<[string, string]> {
  return [...map].sort(([a], [b]) => a.localeCompare(b));
}

describe('Reflector against the emulator under faults', () => {
  it('keeps the cache equal to the server through dropped watches, 410s, failures, latency and a restart', async () => {
    const namespace = 'default';
    const store = new IndexedStore<KubeObject>();
    const fromHandlers = new Map<string, string>();
    const remember = (o: KubeObject): void => {
      fromHandlers.set(objectKey(o), o.metadata.resourceVersion ?? '');
    };
    const reflector = new Reflector({
      source: clientListWatch(reader.client, CONFIGMAPS, { namespace }),
      store,
      handler: {
        onAdd: remember,
        onUpdate: (_old, o) => remember(o),
        onDelete: (o) => fromHandlers.delete(objectKey(o)),
      },
      pageSize: 7,
      watchdogMs: 3_000,
      watchTimeoutSeconds: { min: 2, max: 4 },
      backoff: { initialMs: 20, maxMs: 400 },
    });
    const stop = new AbortController();
    const running = reflector.run(stop.signal);
    expect(await reflector.waitForSync()).toBe(true);

    const writes = startWriter(writer.client, namespace);
    await delay(300);
    emulator.faults.dropWatches();
    await delay(300);
    emulator.faults.expireWatches(3);
    emulator.faults.dropWatches();
    await delay(400);
    emulator.faults.failRequests({ rate: 0.3, statuses: [500, 503, 429] });
    emulator.faults.dropWatches();
    await delay(500);
    emulator.faults.setLatency(40);
    emulator.faults.dropWatches();
    await delay(400);
    emulator.faults.clear();
    await emulator.restart();
    await delay(300);
    emulator.faults.expireWatches(1);
    emulator.faults.dropWatches();
    await delay(300);
    const writeCount = await writes.stop();
    emulator.faults.clear();

    expect(writeCount).toBeGreaterThan(50);
    const expected = await serverState(reader.client, namespace);
    const cacheState = (): Map<string, string> =>
      new Map(store.list().map((o) => [objectKey(o), o.metadata.resourceVersion ?? '']));
    const converged = await eventually(
      () => JSON.stringify(sorted(cacheState())) === JSON.stringify(sorted(expected)),
      10_000,
    );
    expect(sorted(cacheState())).toEqual(sorted(expected));
    expect(converged).toBe(true);
    expect(sorted(fromHandlers)).toEqual(sorted(expected));
    const health = reflector.health();
    expect(health.relists).toBeGreaterThan(1);
    expect(health.watchRestarts).toBeGreaterThan(0);
    stop.abort();
    await running;
  });

  it('restarts a watch the server leaves open but silent, thanks to the watchdog', async () => {
    const namespace = 'kube-public';
    const store = new IndexedStore<KubeObject>();
    // The emulator sends a bookmark every second; a watchdog of 400 ms sees each quiet stretch
    // as a silent watch, restarts it from the last version, and the cache must stay right.
    const source = clientListWatch(reader.client, CONFIGMAPS, { namespace });
    const reflector = new Reflector({
      source,
      store,
      handler: {},
      watchdogMs: 400,
      backoff: { initialMs: 20, maxMs: 200 },
    });
    const stop = new AbortController();
    const running = reflector.run(stop.signal);
    await reflector.waitForSync();
    await writer.client.create(CONFIGMAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'quiet', namespace },
      data: {},
    });
    expect(await eventually(() => store.get(`${namespace}/quiet`) !== undefined, 5_000)).toBe(true);
    expect(await eventually(() => reflector.health().watchRestarts > 0, 1_500)).toBe(true);
    await writer.client.delete(CONFIGMAPS, namespace, 'quiet');
    expect(await eventually(() => store.size === 0, 5_000)).toBe(true);
    expect(reflector.health().stuck).toBe(false);
    stop.abort();
    await running;
  });
});
