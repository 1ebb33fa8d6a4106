import { describe, expect, it } from 'vitest';
import { cloneJsonValue } from '../../src/sim/json-clone.js';

describe('cloneJsonValue', () => {
  it('copies every object and list, so that changing the copy leaves the original as it was', () => {
    const original = {
      metadata: { name: 'a', labels: { x: '1' } },
      spec: { list: [{ n: 1 }, 'two', null, true, 3.5] },
    };
    const copy = cloneJsonValue(original);
    expect(copy).toEqual(original);
    copy.metadata.labels.x = '2';
    (copy.spec.list[0] as { n: number }).n = 9;
    copy.spec.list.push('more');
    expect(original).toEqual({
      metadata: { name: 'a', labels: { x: '1' } },
      spec: { list: [{ n: 1 }, 'two', null, true, 3.5] },
    });
  });

  it('keeps a "__proto__" key of parsed JSON as a property, not as the prototype', () => {
    const parsed = JSON.parse('{"spec":{"__proto__":{"polluted":true}}}') as {
      spec: Record<string, unknown>;
    };
    const copy = cloneJsonValue(parsed);
    expect(Object.getPrototypeOf(copy.spec)).toBe(Object.prototype);
    expect(Object.hasOwn(copy.spec, '__proto__')).toBe(true);
    expect(JSON.stringify(copy)).toBe('{"spec":{"__proto__":{"polluted":true}}}');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('returns scalars as they are', () => {
    expect(cloneJsonValue('s')).toBe('s');
    expect(cloneJsonValue(0)).toBe(0);
    expect(cloneJsonValue(null)).toBe(null);
  });
});
