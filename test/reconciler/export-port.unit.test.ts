// The export port's view of the namespace between a write and the cache catching up: its own
// create is its own (not a stranger's that the names watch already shows), its own delete is
// gone, a ConfigMap without this object's controller reference is foreign, and a cache that
// moved past the write (someone else's edit) wins over the remembered write.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  ConfigMapExports,
  exportedConfigMapInformer,
  type ConfigMapObject,
} from '../../src/reconcilers/agentdeployment/export-port.js';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';

const OWNER = { namespace: 'team-a', name: 'bot', uid: 'uid-bot' };
const signal = new AbortController().signal;

function setUp() {
  let version = 10;
  const client = {
    create: (_type: unknown, body: ConfigMapObject) =>
      Promise.resolve({
        ...body,
        metadata: { ...body.metadata, uid: 'cm-1', resourceVersion: String(++version) },
      }),
    replace: (_type: unknown, body: ConfigMapObject) =>
      Promise.resolve({
        ...body,
        metadata: { ...body.metadata, uid: 'cm-1', resourceVersion: String(++version) },
      }),
    delete: () => Promise.resolve({}),
  } as unknown as KubeClient;
  const managed = exportedConfigMapInformer({} as KubeClient, [], pino({ level: 'silent' }));
  const names = new Map<string, KubeObject>();
  const exports = new ConfigMapExports(client, managed, { get: (key) => names.get(key) }, { now: () => 0 });
  return { exports, managed, names };
}

const owned = (uid: string, resourceVersion: string, data: Record<string, string>): ConfigMapObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'bot-agent',
    namespace: 'team-a',
    uid,
    resourceVersion,
    ownerReferences: [
      {
        apiVersion: 'agentplatform.io/v1alpha1',
        kind: 'AgentDeployment',
        name: 'bot',
        uid: OWNER.uid,
        controller: true,
      },
    ],
  },
  data,
});

describe('ConfigMapExports', () => {
  it('its own create is its own before the cache shows it, even when the names watch already does', async () => {
    const { exports, names } = setUp();
    expect(exports.foreign('team-a', 'bot-agent', OWNER.uid)).toBe(false);
    await exports.write(OWNER, { op: 'create', name: 'bot-agent', data: { A: '1' } }, signal);
    names.set('team-a/bot-agent', { metadata: { name: 'bot-agent', namespace: 'team-a', uid: 'cm-1' } });
    expect(exports.foreign('team-a', 'bot-agent', OWNER.uid)).toBe(false);
    expect(exports.owned('team-a', OWNER.uid)).toEqual([
      { name: 'bot-agent', uid: 'cm-1', resourceVersion: '11', data: { A: '1' } },
    ]);
    expect(exports.owned('team-a', 'another-object')).toEqual([]);
  });

  it('a ConfigMap of that name without its controller reference is foreign, labelled or not', () => {
    const { exports, managed, names } = setUp();
    names.set('team-a/billing', { metadata: { name: 'billing', namespace: 'team-a', uid: 'x' } });
    expect(exports.foreign('team-a', 'billing', OWNER.uid)).toBe(true);
    managed.store.upsert({
      ...owned('cm-2', '5', {}),
      metadata: { ...owned('cm-2', '5', {}).metadata, ownerReferences: [] },
    });
    expect(exports.foreign('team-a', 'bot-agent', OWNER.uid)).toBe(true);
    expect(exports.owned('team-a', OWNER.uid)).toEqual([]);
  });

  it('the cache wins once it moved past the write; an old version of it does not', async () => {
    const { exports, managed } = setUp();
    managed.store.upsert(owned('cm-1', '7', { A: 'old' }));
    await exports.write(
      OWNER,
      { op: 'update', name: 'bot-agent', data: { A: 'new' }, resourceVersion: '7' },
      signal,
    );
    // The cache still shows version 7: the write it has not delivered yet is what holds.
    expect(exports.owned('team-a', OWNER.uid)[0]?.data).toEqual({ A: 'new' });
    // Someone edited it after the write: the cache's newer version holds, and it will be restored.
    managed.store.upsert(owned('cm-1', '12', { A: 'tampered' }));
    expect(exports.owned('team-a', OWNER.uid)[0]?.data).toEqual({ A: 'tampered' });
  });

  it('its own delete is gone although the cache still shows the ConfigMap', async () => {
    const { exports, managed, names } = setUp();
    managed.store.upsert(owned('cm-1', '7', { A: '1' }));
    names.set('team-a/bot-agent', { metadata: { name: 'bot-agent', namespace: 'team-a', uid: 'cm-1' } });
    await exports.write(
      OWNER,
      { op: 'delete', name: 'bot-agent', uid: 'cm-1', resourceVersion: '7' },
      signal,
    );
    expect(exports.owned('team-a', OWNER.uid)).toEqual([]);
    expect(exports.foreign('team-a', 'bot-agent', OWNER.uid)).toBe(false);
  });
});
