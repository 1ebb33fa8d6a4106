import { describe, expect, it } from 'vitest';
import { IndexedStore } from '../../src/runtime/cache/store.js';
import { shareUnchangedParts } from '../../src/runtime/cache/structural-sharing.js';
import { sameJson } from '../../src/runtime/same-json.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';

const version = (resourceVersion: string, touch: string, replicas = 1): KubeObject =>
  JSON.parse(
    JSON.stringify({
      metadata: {
        name: 'a',
        namespace: 'n',
        resourceVersion,
        annotations: { touch },
        labels: { team: 'x' },
        finalizers: ['f'],
      },
      spec: { replicas, template: { image: 'i' } },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    }),
  ) as KubeObject;

describe('structural sharing between cached versions', () => {
  it('keeps the cached spec, status and metadata maps when only an annotation changed', () => {
    const store = new IndexedStore();
    store.upsert(version('1', 'a'));
    const first = store.get('n/a') as KubeObject;
    store.upsert(version('2', 'b'));
    const second = store.get('n/a') as KubeObject;
    expect(second.metadata.resourceVersion).toBe('2');
    expect(second.metadata.annotations).toEqual({ touch: 'b' });
    expect(second.metadata.annotations).not.toBe(first.metadata.annotations);
    expect(second.spec).toBe(first.spec);
    expect(second.status).toBe(first.status);
    expect(second.metadata.labels).toBe(first.metadata.labels);
    expect(second.metadata.finalizers).toBe(first.metadata.finalizers);
    expect(Object.isFrozen(second.metadata.annotations)).toBe(true);
  });

  it('takes a changed part whole, and it is frozen', () => {
    const store = new IndexedStore();
    store.upsert(version('1', 'a', 1));
    const first = store.get('n/a') as KubeObject;
    store.upsert(version('2', 'a', 2));
    const second = store.get('n/a') as KubeObject;
    expect(second.spec).not.toBe(first.spec);
    expect(second.spec).toEqual({ replicas: 2, template: { image: 'i' } });
    expect(Object.isFrozen((second.spec as { template: object }).template)).toBe(true);
    expect(second.status).toBe(first.status);
  });

  it('drops a part the new version no longer has', () => {
    const previous = version('1', 'a');
    const next = version('2', 'a');
    delete next.status;
    delete next.metadata.labels;
    const shared = shareUnchangedParts(previous, next);
    expect('status' in shared).toBe(false);
    expect(shared.metadata.labels).toBeUndefined();
  });

  it('compares JSON values deeply, key order aside', () => {
    expect(sameJson({ a: [1, { b: 'x' }], c: null }, { c: null, a: [1, { b: 'x' }] })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameJson({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson([], {})).toBe(false);
    expect(sameJson({}, [])).toBe(false);
    expect(sameJson('1', 1)).toBe(false);
    expect(sameJson(null, {})).toBe(false);
    expect(sameJson(new Date(0), new Date(1))).toBe(false);
    expect(sameJson({ at: new Date(0) }, { at: new Date(0) })).toBe(false);
  });
});
