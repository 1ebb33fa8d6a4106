import { describe, expect, it } from 'vitest';
import { equalIgnoringUnset } from '../../src/runtime/equal-ignoring-unset.js';

describe('equalIgnoringUnset', () => {
  it('treats null, undefined and absent as the same, at every depth and on either side', () => {
    expect(equalIgnoringUnset({ a: 1, b: null }, { a: 1 })).toBe(true);
    expect(equalIgnoringUnset({ a: 1 }, { a: 1, b: undefined, c: { d: null } })).toBe(false);
    expect(equalIgnoringUnset({ m: [{ subPath: null, name: 'x' }] }, { m: [{ name: 'x' }] })).toBe(true);
    expect(equalIgnoringUnset(null, undefined)).toBe(true);
    expect(equalIgnoringUnset(null, {})).toBe(false);
  });

  it('tells values, arrays and key sets apart', () => {
    expect(equalIgnoringUnset({ a: 1 }, { a: 2 })).toBe(false);
    expect(equalIgnoringUnset({ a: 1 }, { a: 1, b: 0 })).toBe(false);
    expect(equalIgnoringUnset({ a: 1, b: '' }, { a: 1 })).toBe(false);
    expect(equalIgnoringUnset([1, 2], [1, 2, 3])).toBe(false);
    expect(equalIgnoringUnset([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(equalIgnoringUnset('1', 1)).toBe(false);
    expect(equalIgnoringUnset({ a: { b: [1, { c: 'x' }] } }, { a: { b: [1, { c: 'x' }] } })).toBe(true);
  });

  it('answers at once for the same object', () => {
    const shared = { conditions: [{ type: 'Ready' }] };
    expect(equalIgnoringUnset(shared, shared)).toBe(true);
  });
});
