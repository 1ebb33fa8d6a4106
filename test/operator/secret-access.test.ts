// The Secret access model (issue 16, item 3): the operator's Secret cache holds names and
// resourceVersions only, whatever the Secrets contain (data, stringData, kubectl's
// last-applied annotation); values are read by name, for the Secrets a reconcile asks for,
// and read again only when the watch shows a new resourceVersion.
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { secretMetadataInformer } from '../../src/runtime/secrets/secret-metadata.js';
import { SecretValues } from '../../src/runtime/secrets/secret-values.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import { AGENT_DEPLOYMENTS } from '../../src/operator/operator.js';
import { NAMESPACE, SECRETS, Stack, containerAgent, isReady } from './harness.js';

const UNREFERENCED_VALUE = 'unreferenced-v4lue-5d1e';
const REFERENCED_VALUE = 'referenced-v4lue-a8c0';
const ROTATED_VALUE = 'rotated-v4lue-3b7f';

let stack: Stack;
let stop: AbortController;

beforeEach(async () => {
  stack = await Stack.start({ withoutOperator: true });
  stop = new AbortController();
});
afterEach(async () => {
  stop.abort();
  await stack.close();
});

function secret(name: string, value: string): KubeObject {
  const data = { token: Buffer.from(value).toString('base64') };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: NAMESPACE,
      // What `kubectl apply` leaves behind: the whole Secret, data included, in an annotation.
      annotations: {
        'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({
          data,
          stringData: { token: value },
        }),
      },
    },
    data,
  };
}

function base64(value: string): string {
  return Buffer.from(value).toString('base64');
}

describe('the Secret cache', () => {
  it('keeps no value of any Secret; values are read by name for referenced Secrets, again only after a change', async () => {
    await stack.client.create(SECRETS, secret('unreferenced', UNREFERENCED_VALUE));
    await stack.client.create(SECRETS, secret('referenced', REFERENCED_VALUE));
    const informer = secretMetadataInformer(stack.client, [], pino({ level: 'silent' }));
    const running = informer.run(stop.signal);
    expect(await informer.waitForSync(stop.signal)).toBe(true);

    const cached = JSON.stringify(informer.store.list());
    expect(
      informer.store
        .list()
        .map((s) => s.metadata.name)
        .sort(),
    ).toEqual(['referenced', 'unreferenced']);
    for (const value of [UNREFERENCED_VALUE, REFERENCED_VALUE]) {
      expect(cached).not.toContain(value);
      expect(cached).not.toContain(base64(value));
    }

    const values = new SecretValues(stack.client, informer.store);
    expect(values.get(NAMESPACE, 'referenced')).toBeUndefined();
    expect(await values.load(NAMESPACE, ['referenced', 'missing'], stop.signal)).toEqual({
      ok: true,
      value: undefined,
    });
    expect(values.size).toBe(1);
    expect(values.get(NAMESPACE, 'referenced')?.data?.token).toBe(base64(REFERENCED_VALUE));
    expect(values.get(NAMESPACE, 'missing')).toBeUndefined();
    expect(values.get(NAMESPACE, 'unreferenced')).toBeUndefined();

    // Rotation: the watch shows a new resourceVersion, and the next load reads the new value.
    await stack.client.mergePatch(SECRETS, NAMESPACE, 'referenced', {
      data: { token: base64(ROTATED_VALUE) },
    });
    await stack.waitUntil(
      () =>
        Promise.resolve(
          informer.store.get(`${NAMESPACE}/referenced`)?.metadata.resourceVersion !==
            values.get(NAMESPACE, 'referenced')?.metadata?.resourceVersion,
        ),
      'the watch delivers the rotation',
    );
    await values.load(NAMESPACE, ['referenced'], stop.signal);
    expect(values.get(NAMESPACE, 'referenced')?.data?.token).toBe(base64(ROTATED_VALUE));
    expect(JSON.stringify(informer.store.list())).not.toContain(base64(ROTATED_VALUE));

    // A deleted Secret is gone for the reconciler at once (the watch), whatever was read before.
    await stack.client.delete(SECRETS, NAMESPACE, 'referenced');
    await stack.waitUntil(
      () => Promise.resolve(values.get(NAMESPACE, 'referenced') === undefined),
      'the deletion is seen',
    );
    stop.abort();
    await running;
  });
});

describe('the operator', () => {
  it('holds the values of referenced Secrets only, and drops them when nothing references them any more', async () => {
    await stack.startOperator();
    const held = async (): Promise<number> => {
      const text = (await stack.operators[0]?.registry.metrics()) ?? '';
      return Number(/^agent_operator_secret_values_held (\d+)$/m.exec(text)?.[1] ?? 'NaN');
    };
    await stack.client.create(SECRETS, secret('unreferenced', UNREFERENCED_VALUE));
    await stack.client.create(SECRETS, secret('referenced', REFERENCED_VALUE));
    const listenerId = await stack.listenerId();
    await stack.apply(
      containerAgent('holder', listenerId, {
        secrets: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'referenced', key: 'token' } } }],
      }),
    );
    await stack.waitFor('holder', isReady, 'Ready');
    expect(await held()).toBe(1);

    // An edit that keeps the reference (an annotation) keeps the value; one that drops it lets it go.
    await stack.client.mergePatch(AGENT_DEPLOYMENTS, NAMESPACE, 'holder', {
      metadata: { annotations: { touched: 'yes' } },
    });
    await stack.waitFor('holder', (o) => o.metadata.annotations?.touched === 'yes', 'the touch in the cache');
    expect(await held()).toBe(1);
    await stack.client.mergePatch(AGENT_DEPLOYMENTS, NAMESPACE, 'holder', { spec: { secrets: null } });
    await stack.waitUntil(
      async () => (await held()) === 0,
      'the value is dropped when the spec stops referencing it',
    );

    await stack.client.mergePatch(AGENT_DEPLOYMENTS, NAMESPACE, 'holder', {
      spec: {
        secrets: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'referenced', key: 'token' } } }],
      },
    });
    await stack.waitUntil(async () => (await held()) === 1, 'the value read again for the new reference');
    await stack.client.delete(AGENT_DEPLOYMENTS, NAMESPACE, 'holder');
    await stack.waitUntil(async () => (await held()) === 0, 'the value is dropped with its last reference');
  });
});
