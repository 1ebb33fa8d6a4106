// @kubernetes/client-node 1.4's own calls against the emulator: what the operator uses.
import { CoordinationV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, Watch, setHeaderOptions, type V1Lease } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, installWidgetCrd, startTestEmulator, widget, WIDGETS, type TestEmulator } from './helpers.js';

let env: TestEmulator;
let config: KubeConfig;

beforeAll(async () => {
  env = await startTestEmulator();
  await installWidgetCrd(env);
  config = new KubeConfig();
  config.loadFromFile(env.kubeconfig);
});
afterAll(async () => {
  await env.stop();
});

describe('@kubernetes/client-node against the emulator', () => {
  it('lists custom objects', async () => {
    await http(env, 'POST', WIDGETS, widget('c1', 2));
    const api = config.makeApiClient(CustomObjectsApi);
    const list = (await api.listNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets' })) as {
      items: Array<{ metadata: { name: string } }>;
      metadata: { resourceVersion: string };
    };
    expect(list.items.map((i) => i.metadata.name)).toEqual(['c1']);
    expect(list.metadata.resourceVersion).toMatch(/^\d+$/);
  });

  it('watches with its Watch class and sees ADDED and MODIFIED', async () => {
    const events: string[] = [];
    let resolveSeen: () => void = () => undefined;
    const seen = new Promise<void>((resolve) => (resolveSeen = resolve));
    const watch = new Watch(config);
    const controller = await watch.watch(
      WIDGETS,
      { allowWatchBookmarks: true },
      (type: string, object: { metadata?: { name?: string } }) => {
        if (type === 'BOOKMARK') return;
        events.push(`${type}:${object.metadata?.name ?? ''}`);
        if (events.length >= 2) resolveSeen();
      },
      () => undefined,
    );
    await http(env, 'PATCH', `${WIDGETS}/c1`, { spec: { size: 5 } }, 'application/merge-patch+json');
    await seen;
    controller.abort();
    expect(events).toEqual(['ADDED:c1', 'MODIFIED:c1']);
  });

  it('patches status with an explicit merge-patch content type', async () => {
    const api = config.makeApiClient(CustomObjectsApi);
    const patched = (await api.patchNamespacedCustomObjectStatus(
      { group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets', name: 'c1', body: { status: { observedGeneration: 2 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as { status: { observedGeneration: number }; metadata: { generation: number } };
    expect(patched.status.observedGeneration).toBe(2);
    expect(patched.metadata.generation).toBe(2);
  });

  it('creates and replaces a Lease (times with six fractional digits)', async () => {
    const api = config.makeApiClient(CoordinationV1Api);
    // client-node serializes Date with 3 digits; a real server rejects that, so send strings.
    const body = {
      metadata: { name: 'leader', namespace: 'default' },
      spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2024-01-01T00:00:00.123456Z' },
    } as unknown as V1Lease;
    const created = await api.createNamespacedLease({ namespace: 'default', body });
    expect(created.spec?.holderIdentity).toBe('a');
    const replaced = await api.replaceNamespacedLease({
      name: 'leader',
      namespace: 'default',
      body: { ...body, metadata: { ...body.metadata, resourceVersion: created.metadata?.resourceVersion }, spec: { ...body.spec, holderIdentity: 'b' } } as V1Lease,
    });
    expect(replaced.spec?.holderIdentity).toBe('b');
    const stale = api.replaceNamespacedLease({
      name: 'leader',
      namespace: 'default',
      body: { ...body, metadata: { ...body.metadata, resourceVersion: created.metadata?.resourceVersion } } as V1Lease,
    });
    await expect(stale).rejects.toMatchObject({ code: 409 });
  });
});
