// The kit's controller (TraceDeletion, ExampleDeletion, tracing-project lookups) abandons a
// pass whose object leaves its cache, as the AgentDeployment controller does: relabelled to
// another shard mid-submission, the old shard's pass must stop before its next batch or write.
import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { ConnectionUser } from '../../src/connections/agentdeployment-connection.js';
import { deletionController } from '../../src/reconcilers/deletion/controller-kit.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import type { ResourceEventHandler } from '../../src/runtime/reflector/handlers.js';
import { awaitChange } from '../../src/runtime/reconcile/result.js';

type Deletion = KubeObject & ConnectionUser;

function cacheOf(objects: Deletion[]) {
  const handlers: Array<ResourceEventHandler<Deletion>> = [];
  const byKey = new Map(
    objects.map((object) => [`${object.metadata.namespace}/${object.metadata.name}`, object]),
  );
  return {
    store: { get: (key: string) => byKey.get(key) },
    addHandler: (handler: ResourceEventHandler<Deletion>) => {
      handlers.push(handler);
      return () => undefined;
    },
    leave: (key: string) => {
      const object = byKey.get(key);
      byKey.delete(key);
      if (object) for (const handler of handlers) handler.onDelete?.(object);
    },
  };
}

const deletion = (name: string): Deletion => ({
  apiVersion: 'agentplatform.io/v1alpha1',
  kind: 'TraceDeletion',
  metadata: { namespace: 'team-a', name },
  spec: {},
});

describe('the deletion kit controller', () => {
  it('aborts the running pass of an object that left the cache, and only that one', async () => {
    const cache = cacheOf([deletion('moved'), deletion('staying')]);
    const seen = new Map<string, AbortSignal>();
    const controller = deletionController(
      {
        concurrency: 4,
        registry: new Registry(),
        logger: pino({ level: 'silent' }),
        loadConnectionKey: () => undefined,
      },
      'tracedeletion',
      cache,
      (key, signal) =>
        new Promise((resolve) => {
          seen.set(key, signal);
          signal.addEventListener('abort', () => resolve(awaitChange), { once: true });
        }),
    );
    controller.start();
    controller.enqueue('team-a/moved');
    controller.enqueue('team-a/staying');
    await expect.poll(() => seen.size).toBe(2);
    cache.leave('team-a/moved');
    expect(seen.get('team-a/moved')?.aborted).toBe(true);
    expect(String((seen.get('team-a/moved')?.reason as Error).message)).toMatch(/left this operator's cache/);
    expect(seen.get('team-a/staying')?.aborted).toBe(false);
    await controller.stop({ abortInFlight: true, drainTimeoutMs: 1_000 });
  });
});
