import { describe, expect, it } from 'vitest';
import { IndexedStore } from '../../src/runtime/cache/store.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';

function obj(namespace: string, name: string, rv: string, secret?: string): KubeObject {
  return { metadata: { namespace, name, resourceVersion: rv }, spec: secret ? { secretRef: secret } : {} };
}

const bySecret = (o: KubeObject): string[] => {
  const ref = (o.spec as { secretRef?: string } | undefined)?.secretRef;
  return ref ? [`${o.metadata.namespace}/${ref}`] : [];
};

describe('IndexedStore', () => {
  it('stores every part of an object frozen, nested objects and arrays included, values unchanged', () => {
    const store = new IndexedStore<KubeObject>({});
    const object: KubeObject = {
      metadata: { namespace: 'a', name: 'x', resourceVersion: '1', finalizers: ['f'] },
      spec: { containers: [{ name: 'c', env: [{ name: 'A', value: 'v' }] }] },
    };
    const copy = structuredClone(object);
    store.upsert(object);
    const stored = store.get('a/x');
    expect(stored).toEqual(copy);
    const containers = (stored?.spec as { containers: Array<{ env: object[] }> }).containers;
    for (const part of [stored, stored?.metadata, stored?.metadata.finalizers, stored?.spec, containers]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(Object.isFrozen(containers[0])).toBe(true);
    expect(Object.isFrozen(containers[0]?.env[0])).toBe(true);
  });

  it('keys objects by namespace/name and keeps custom indexes current across updates and deletes', () => {
    const store = new IndexedStore<KubeObject>({ bySecret });
    store.upsert(obj('a', 'x', '1', 'key'));
    store.upsert(obj('a', 'y', '1', 'key'));
    store.upsert(obj('b', 'x', '1', 'key'));
    expect(store.keys().sort()).toEqual(['a/x', 'a/y', 'b/x']);
    expect(
      store
        .byIndex('bySecret', 'a/key')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['x', 'y']);
    store.upsert(obj('a', 'y', '2', 'other'));
    expect(store.byIndex('bySecret', 'a/key').map((o) => o.metadata.name)).toEqual(['x']);
    expect(store.byIndex('bySecret', 'a/other').map((o) => o.metadata.name)).toEqual(['y']);
    store.delete('a/x');
    expect(store.byIndex('bySecret', 'a/key')).toEqual([]);
    expect(store.get('a/x')).toBeUndefined();
  });

  it('moves an object only in the indexes whose values changed, with several values and several objects', () => {
    const refs = (o: KubeObject): string[] => (o.spec as { refs?: string[] } | undefined)?.refs ?? [];
    const byName = (o: KubeObject): string[] => [o.metadata.name ?? ''];
    const store = new IndexedStore<KubeObject>({ refs, byName });
    const withRefs = (name: string, rv: string, list: string[]): KubeObject => ({
      metadata: { namespace: 'a', name, resourceVersion: rv },
      spec: { refs: list },
    });
    const names = (value: string): string[] =>
      store
        .byIndex('refs', value)
        .map((o) => o.metadata.name ?? '')
        .sort();
    store.upsert(withRefs('x', '1', ['p', 'q', 'q']));
    store.upsert(withRefs('y', '1', ['q']));
    store.upsert(withRefs('x', '2', ['q', 'r']));
    expect([names('p'), names('q'), names('r')]).toEqual([[], ['x', 'y'], ['x']]);
    // The same values again (a status write): nothing moves, nothing is listed twice.
    store.upsert(withRefs('x', '3', ['q', 'r']));
    expect([names('q'), names('r')]).toEqual([['x', 'y'], ['x']]);
    store.delete('a/y');
    expect(names('q')).toEqual(['x']);
    store.upsert(withRefs('y', '4', ['q']));
    store.upsert(withRefs('x', '4', []));
    expect([names('q'), names('r')]).toEqual([['y'], []]);
    expect(store.byIndex('byName', 'x').map((o) => o.metadata.resourceVersion)).toEqual(['4']);
  });

  it('replace reports adds, changes (by resourceVersion) and deletes, only within the listed scope', () => {
    const store = new IndexedStore<KubeObject>();
    store.upsert(obj('a', 'keep', '1'));
    store.upsert(obj('a', 'change', '1'));
    store.upsert(obj('a', 'gone', '1'));
    store.upsert(obj('b', 'other-namespace', '1'));
    const change = store.replace(
      [obj('a', 'keep', '1'), obj('a', 'change', '2'), obj('a', 'new', '1')],
      (o) => o.metadata.namespace === 'a',
    );
    expect(change.added.map((o) => o.metadata.name)).toEqual(['new']);
    expect(
      change.updated.map((u) => [u.old.metadata.resourceVersion, u.current.metadata.resourceVersion]),
    ).toEqual([['1', '2']]);
    expect(change.deleted.map((o) => o.metadata.name)).toEqual(['gone']);
    expect(store.get('b/other-namespace')).toBeDefined();
    expect(store.size).toBe(4);
  });

  it('stores an object whose index function throws, leaves it out of that index, and can remove it', () => {
    const errors: string[] = [];
    const store = new IndexedStore<KubeObject>(
      {
        bySecret: (o) => {
          if (o.metadata.name === 'bad') throw new TypeError('no valueFrom');
          return bySecret(o);
        },
      },
      { onIndexError: (index, key) => errors.push(`${index}:${key}`) },
    );
    store.upsert(obj('a', 'bad', '1', 'key'));
    store.upsert(obj('a', 'good', '1', 'key'));
    expect(store.keys().sort()).toEqual(['a/bad', 'a/good']);
    expect(store.byIndex('bySecret', 'a/key').map((o) => o.metadata.name)).toEqual(['good']);
    expect(errors).toEqual(['bySecret:a/bad']);
    // Replacing or deleting must not call the throwing function again for the old object.
    store.upsert(obj('a', 'bad', '2', 'key'));
    expect(store.delete('a/bad')?.metadata.resourceVersion).toBe('2');
    const change = store.replace([obj('a', 'good', '1', 'key')]);
    expect(change.deleted).toEqual([]);
    expect(store.keys()).toEqual(['a/good']);
  });
});
