// An informer's cache drops managedFields and kubectl's last-applied-configuration as objects
// arrive (list and watch alike), keeps every other annotation, and changes nothing on the
// server: a GET still answers both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAST_APPLIED_ANNOTATION } from '../../../src/runtime/kube/cache-trim.js';
import type { KubeClient } from '../../../src/runtime/kube/client.js';
import type { KubeObject } from '../../../src/runtime/kube/objects.js';
import { Informer } from '../../../src/runtime/manager/informer.js';
import type { KubeEmulator } from '../../../src/sim/kube/index.js';
import { CONFIGMAPS, clientFor, eventually, startEmulator } from './emulator-support.js';

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

function applied(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: NAMESPACE,
      annotations: { [LAST_APPLIED_ANNOTATION]: '{"data":{"big":"copy"}}', 'team.example.com/owner': 'a' },
    },
    data: { value: 'x' },
  };
}

type WithManagedFields = KubeObject['metadata'] & { managedFields?: unknown[] };

describe('cache trim', () => {
  it('keeps neither managedFields nor last-applied-configuration, from a list or a watch', async () => {
    await api.client.create(CONFIGMAPS, applied('listed'));
    const informer = Informer.forResource<KubeObject>(api.client, { type: CONFIGMAPS, namespaces: [NAMESPACE] });
    const running = new AbortController();
    const run = informer.run(running.signal);
    try {
      expect(await informer.waitForSync()).toBe(true);
      await api.client.create(CONFIGMAPS, applied('watched'));
      expect(await eventually(() => informer.store.get(`${NAMESPACE}/watched`) !== undefined, 5_000)).toBe(true);
      for (const name of ['listed', 'watched']) {
        const cached = informer.store.get(`${NAMESPACE}/${name}`);
        const metadata = cached?.metadata as WithManagedFields;
        expect(metadata.managedFields).toBeUndefined();
        expect(metadata.annotations).toEqual({ 'team.example.com/owner': 'a' });
        expect(cached?.data).toEqual({ value: 'x' });
        // The server still has both: the trim is the cache's alone.
        const served = await api.client.get(CONFIGMAPS, NAMESPACE, name);
        expect((served.metadata as WithManagedFields).managedFields?.length).toBeGreaterThan(0);
        expect(served.metadata.annotations?.[LAST_APPLIED_ANNOTATION]).toBeDefined();
      }
    } finally {
      running.abort();
      await run;
    }
  });

  it('asks for watch events without managedFields when the default trim drops them, and not for its own transform', async () => {
    const asked: Array<boolean | undefined> = [];
    const watching = new Proxy(api.client, {
      get(target, property, receiver) {
        if (property !== 'watch') return Reflect.get(target, property, receiver) as unknown;
        return (type: Parameters<KubeClient['watch']>[0], options: Parameters<KubeClient['watch']>[1]) => {
          asked.push(options?.omitManagedFields);
          return target.watch(type, options);
        };
      },
    });
    const kept: unknown[] = [];
    for (const transform of [undefined, (object: KubeObject) => (kept.push((object.metadata as WithManagedFields).managedFields), object)]) {
      const informer = Informer.forResource<KubeObject>(watching, {
        type: CONFIGMAPS,
        namespaces: [NAMESPACE],
        ...(transform ? { transform } : {}),
      });
      const running = new AbortController();
      const run = informer.run(running.signal);
      try {
        expect(await informer.waitForSync()).toBe(true);
        expect(await eventually(() => asked.length > 0, 5_000)).toBe(true);
      } finally {
        running.abort();
        await run;
      }
      expect(asked.splice(0)).toEqual([transform ? undefined : true]);
    }
    // The transform of its own saw the listed objects whole.
    expect(kept.some((managedFields) => Array.isArray(managedFields))).toBe(true);
  });
});
