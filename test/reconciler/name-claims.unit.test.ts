// Which of several objects resolving to one control-plane name may create the deployment:
// the owner first, then the oldest by creationTimestamp, then the lowest uid, the same answer
// from every replica and after every restart. And which of two records of one deployment id
// is believed.
import { describe, expect, it } from 'vitest';
import { olderOwnerOf, rivalFor } from '../../src/reconcilers/agentdeployment/name-claims.js';
import type { FleetClaimant } from '../../src/reconcilers/agentdeployment/ports.js';

function claimant(
  key: string,
  uid: string,
  creationTimestamp: string,
  ownedDeploymentId?: string,
): FleetClaimant {
  return { key, uid, creationTimestamp, ...(ownedDeploymentId === undefined ? {} : { ownedDeploymentId }) };
}

const EARLY = '2026-11-20T10:00:00Z';
const LATE = '2026-11-20T10:00:01Z';

describe('rivalFor: who wins a control-plane name', () => {
  it('lets an object with no other claimant have the name (itself in the list does not count)', () => {
    const self = claimant('a/x', 'uid-1', LATE);
    expect(rivalFor(self, [])).toBeUndefined();
    expect(rivalFor(self, [self])).toBeUndefined();
  });

  it('gives the name to the older object', () => {
    const older = claimant('a/x', 'uid-9', EARLY);
    const younger = claimant('b/x', 'uid-1', LATE);
    expect(rivalFor(younger, [older, younger])).toBe('a/x');
    expect(rivalFor(older, [older, younger])).toBeUndefined();
  });

  it('breaks a tie of creation time (one-second precision) by the lower uid, whatever the order listed', () => {
    const low = claimant('a/x', 'uid-1', EARLY);
    const high = claimant('b/x', 'uid-2', EARLY);
    for (const list of [
      [low, high],
      [high, low],
    ]) {
      expect(rivalFor(high, list)).toBe('a/x');
      expect(rivalFor(low, list)).toBeUndefined();
    }
  });

  it('prefers the object that owns a deployment over an older one that does not', () => {
    const olderWithout = claimant('a/x', 'uid-1', EARLY);
    const youngerOwner = claimant('b/x', 'uid-2', LATE, 'dep-1');
    expect(rivalFor(olderWithout, [olderWithout, youngerOwner])).toBe('b/x');
  });

  it('never takes the name from an object that owns its deployment, even for an older claimant', () => {
    const owner = claimant('b/x', 'uid-2', LATE, 'dep-1');
    const olderOwner = claimant('a/x', 'uid-1', EARLY, 'dep-2');
    expect(rivalFor(owner, [olderOwner, owner])).toBeUndefined();
  });

  it('between two owners of different deployments, ranks by age (for the claimant that owns none)', () => {
    const self = claimant('c/x', 'uid-0', EARLY);
    const older = claimant('a/x', 'uid-5', EARLY, 'dep-1');
    const younger = claimant('b/x', 'uid-1', LATE, 'dep-2');
    expect(rivalFor(self, [younger, self, older])).toBe('a/x');
  });

  it('picks the single oldest of many, so that every claimant agrees on one winner', () => {
    const claimants = [
      claimant('d/x', 'uid-4', LATE),
      claimant('b/x', 'uid-3', EARLY),
      claimant('a/x', 'uid-2', EARLY),
      claimant('c/x', 'uid-1', '2026-11-20T10:00:02Z'),
    ];
    const winners = claimants.map((self) => rivalFor(self, claimants) ?? self.key);
    expect(new Set(winners)).toEqual(new Set(['a/x']));
  });
});

describe('olderOwnerOf: two records of one deployment id', () => {
  it('is undefined for an object that records no deployment', () => {
    const self = claimant('b/x', 'uid-2', LATE);
    expect(olderOwnerOf(self, [claimant('a/x', 'uid-1', EARLY, 'dep-1')])).toBeUndefined();
  });

  it('names an older object recording the same id', () => {
    const self = claimant('b/x', 'uid-2', LATE, 'dep-1');
    expect(olderOwnerOf(self, [claimant('a/x', 'uid-1', EARLY, 'dep-1'), self])).toBe('a/x');
  });

  it('trusts neither record within the same second, whatever the uids', () => {
    const low = claimant('a/x', 'uid-1', EARLY, 'dep-1');
    const high = claimant('b/x', 'uid-2', EARLY, 'dep-1');
    expect(olderOwnerOf(low, [low, high])).toBe('b/x');
    expect(olderOwnerOf(high, [low, high])).toBe('a/x');
  });

  it('ignores a younger object recording the same id, another id, and the object itself', () => {
    const self = claimant('a/x', 'uid-1', EARLY, 'dep-1');
    expect(
      olderOwnerOf(self, [
        self,
        claimant('b/x', 'uid-2', LATE, 'dep-1'),
        claimant('c/x', 'uid-3', EARLY, 'dep-2'),
      ]),
    ).toBeUndefined();
  });
});
