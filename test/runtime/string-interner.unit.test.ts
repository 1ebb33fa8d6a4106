// The shared string table: what it holds and how it stays bounded. (That equal strings then
// share one copy is not observable from JavaScript; the heap figures in docs/benchmarks.md are.)
import { describe, expect, it } from 'vitest';
import { StringInterner } from '../../src/runtime/cache/string-interner.js';

describe('StringInterner', () => {
  it('holds each short string once, and leaves long ones out of the table', () => {
    const table = new StringInterner(10, 8);
    expect(table.intern('listener')).toBe('listener');
    table.intern(['list', 'ener'].join(''));
    expect(table.size).toBe(1);
    expect(table.intern('a string longer than eight')).toBe('a string longer than eight');
    expect(table.size).toBe(1);
  });

  it('starts afresh when full, so strings unique to one object cannot grow it without bound', () => {
    const table = new StringInterner(100);
    for (let i = 0; i < 1_000; i += 1) table.intern(`uid-${i}`);
    expect(table.size).toBeLessThanOrEqual(100);
    expect(table.size).toBeGreaterThan(0);
  });

  it('replaces the strings of a parsed value in place, values unchanged, frozen parts untouched', () => {
    const table = new StringInterner();
    const frozen = Object.freeze({ kept: 'x' });
    const value = {
      apiVersion: 'agentplatform.io/v1alpha1',
      metadata: { finalizers: ['agentplatform.io/finalizer'], labels: { team: 'a' } },
      spec: { count: 3, enabled: true, none: null, nested: [{ kind: 'external_container' }] },
      frozen,
    };
    const copy = JSON.parse(JSON.stringify(value)) as unknown;
    table.internAll(value);
    expect(value).toEqual(copy);
    // Every short string met is in the table once; the frozen part was not walked.
    expect(table.size).toBe(4);
  });

  it('keeps a resourceVersion out of the table: no two versions share one, so each would only fill it', () => {
    const table = new StringInterner();
    for (let version = 1; version <= 50; version += 1) {
      const object = { metadata: { name: 'agent', resourceVersion: String(1000 + version) } };
      table.internAll(object);
      expect(object.metadata.resourceVersion).toBe(String(1000 + version));
    }
    expect(table.size).toBe(1);
  });
});
