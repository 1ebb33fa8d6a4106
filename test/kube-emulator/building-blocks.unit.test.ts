// The pure pieces: printer-column JSONPath, selectors, patches, human durations.
import { describe, expect, it } from 'vitest';
import { evaluateJsonPath, parseJsonPath } from '../../src/sim/kube/jsonpath.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '../../src/sim/kube/patch.js';
import { parseFieldSelector, parseLabelSelector } from '../../src/sim/kube/selectors.js';
import { humanDuration } from '../../src/sim/kube/table.js';
import type { KubeObject } from '../../src/sim/kube/kube-object.js';

const object: KubeObject = {
  metadata: { name: 'x', namespace: 'ns', labels: { app: 'web', tier: 'front' } },
  status: { conditions: [{ type: 'Synced', status: 'False' }, { type: 'Ready', status: 'True' }] },
};

describe('JSONPath for printer columns', () => {
  it('evaluates fields, indexes and the condition filter form', () => {
    expect(evaluateJsonPath(object, parseJsonPath('.status.conditions[?(@.type=="Ready")].status'))).toEqual(['True']);
    expect(evaluateJsonPath(object, parseJsonPath('.status.conditions[0].type'))).toEqual(['Synced']);
    expect(evaluateJsonPath(object, parseJsonPath('{.status.conditions[*].type}'))).toEqual(['Synced', 'Ready']);
    expect(evaluateJsonPath(object, parseJsonPath(".metadata.labels['app']"))).toEqual(['web']);
    expect(evaluateJsonPath(object, parseJsonPath('.spec.missing'))).toEqual([]);
  });
});

describe('selectors', () => {
  it('parses every label operator and rejects malformed ones', () => {
    const matches = (s: string): boolean => parseLabelSelector(s)?.(object) ?? true;
    expect(matches('app=web,tier==front')).toBe(true);
    expect(matches('app!=web')).toBe(false);
    expect(matches('app in (api, web)')).toBe(true);
    expect(matches('tier notin (front)')).toBe(false);
    expect(matches('app,!missing')).toBe(true);
    expect(() => parseLabelSelector('app=(bad')).toThrow(/invalid label value/);
  });

  it('supports metadata.name/namespace and names unsupported field labels', () => {
    expect(parseFieldSelector('metadata.namespace=ns,metadata.name!=y', [])?.(object)).toBe(true);
    expect(() => parseFieldSelector('spec.size=1', [])).toThrow('field label not supported: spec.size');
  });
});

describe('patches', () => {
  it('merge patch removes nulls and replaces lists', () => {
    expect(applyMergePatch({ a: 1, b: { c: 2, d: 3 }, l: [1, 2] }, { b: { c: null }, l: [3] })).toEqual({ a: 1, b: { d: 3 }, l: [3] });
  });

  it('json patch applies operations and fails a test with 422', () => {
    const doc = { spec: { items: ['a'] } };
    expect(applyJsonPatch(doc, [{ op: 'add', path: '/spec/items/-', value: 'b' }, { op: 'replace', path: '/spec/items/0', value: 'z' }])).toEqual({ spec: { items: ['z', 'b'] } });
    expect(doc).toEqual({ spec: { items: ['a'] } });
    expect(() => applyJsonPatch(doc, [{ op: 'test', path: '/spec/items/0', value: 'q' }])).toThrow(expect.objectContaining({ code: 422 }));
  });

  it('strategic merge patch merges named list items and honours directives', () => {
    const current = { containers: [{ name: 'a', image: '1', env: [{ name: 'X', value: '1' }] }, { name: 'b', image: '1' }] };
    const patch = { '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }], containers: [{ name: 'a', image: '2' }, { name: 'b', $patch: 'delete' }] };
    expect(applyStrategicMergePatch(current, patch)).toEqual({ containers: [{ name: 'a', image: '2', env: [{ name: 'X', value: '1' }] }] });
  });
});

describe('human durations', () => {
  it('reads like kubectl ages', () => {
    expect(humanDuration(5_000)).toBe('5s');
    expect(humanDuration(150_000)).toBe('2m30s');
    expect(humanDuration(3 * 3600_000 + 5 * 60_000)).toBe('3h5m');
    expect(humanDuration(3 * 24 * 3600_000)).toBe('3d');
  });
});
