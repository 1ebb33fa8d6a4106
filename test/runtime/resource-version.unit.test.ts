// resourceVersion order (KEP-5504): integers compare by value, without parsing past 2^53, and
// anything that is not a canonical positive integer is not ordered at all.
import { describe, expect, it } from 'vitest';
import { compareResourceVersions } from '../../src/runtime/kube/resource-version.js';

describe('compareResourceVersions', () => {
  it.each([
    ['9', '10', -1],
    ['10', '9', 1],
    ['123', '123', 0],
    ['99999999999999999998', '99999999999999999999', -1],
    ['100000000000000000000', '99999999999999999999', 1],
  ] as const)('orders %s against %s as %i', (a, b, order) => {
    expect(compareResourceVersions(a, b)).toBe(order);
  });

  it.each([['0'], ['007'], [''], ['12a'], ['-3'], ['1.5']])('does not order %j', (odd) => {
    expect(compareResourceVersions(odd, '5')).toBeUndefined();
    expect(compareResourceVersions('5', odd)).toBeUndefined();
  });
});
