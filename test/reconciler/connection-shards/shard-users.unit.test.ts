// A connection's users counted across shards: each shard replaces only its own entry, usedBy is
// the sum, an entry expires only when its shard's Lease says the shard is gone, and a deleting
// connection waits for every other live shard's users.
import { describe, expect, it } from 'vitest';
import type { ShardUsers } from '../../../src/api/connection/index.js';
import {
  countUsers,
  DEFAULT_LEASE_DURATION_MS,
  otherShardsInUse,
  SHARD_ENTRY_EXPIRY_LEASES,
  shardEntryExpired,
} from '../../../src/reconcilers/connection/shard-users.js';

const NOW = Date.parse('2026-11-26T12:00:00Z');
const EARLIER = '2026-11-26T11:00:00.000Z';
const NONE = new Set<string>();
/** How long a shard's Lease may stay unrenewed before its entry expires (10 minutes). */
const GRACE_MS = SHARD_ENTRY_EXPIRY_LEASES * DEFAULT_LEASE_DURATION_MS;

function entry(shard: string, usedBy: number, observedAt = EARLIER): ShardUsers {
  return { shard, usedBy, observedAt };
}

describe('countUsers', () => {
  it('replaces only its own entry and sums every entry into usedBy', () => {
    const counted = countUsers([entry('a', 3), entry('b', 2)], {
      shard: 'b',
      count: 5,
      now: NOW,
      refresh: false,
      expired: NONE,
    });
    expect(counted).toEqual({
      shardUsers: [entry('a', 3), entry('b', 5, new Date(NOW).toISOString())],
      usedBy: 8,
    });
  });

  it('adds its entry beside the others, sorted by shard, when it had none', () => {
    const counted = countUsers([entry('z', 1)], { shard: 'a', count: 2, now: NOW, refresh: false, expired: NONE });
    expect(counted.shardUsers?.map((e) => e.shard)).toEqual(['a', 'z']);
    expect(counted.usedBy).toBe(3);
  });

  it('keeps its observedAt while its count is unchanged, so that a quiet pass writes nothing', () => {
    const counted = countUsers([entry('a', 2)], { shard: 'a', count: 2, now: NOW, refresh: false, expired: NONE });
    expect(counted.shardUsers).toEqual([entry('a', 2)]);
  });

  it('stamps observedAt at a probe even when the count is unchanged', () => {
    const counted = countUsers([entry('a', 2)], { shard: 'a', count: 2, now: NOW, refresh: true, expired: NONE });
    expect(counted.shardUsers).toEqual([entry('a', 2, new Date(NOW).toISOString())]);
  });

  it('drops expired entries and leaves them out of usedBy', () => {
    const counted = countUsers([entry('a', 1), entry('gone', 7)], {
      shard: 'a',
      count: 1,
      now: NOW,
      refresh: false,
      expired: new Set(['gone']),
    });
    expect(counted).toEqual({ shardUsers: [entry('a', 1)], usedBy: 1 });
  });

  it('unsharded: its count is the total, and no entry is kept (leftovers of a sharded past are dropped)', () => {
    expect(countUsers(undefined, { shard: undefined, count: 4, now: NOW, refresh: true, expired: NONE })).toEqual({
      shardUsers: undefined,
      usedBy: 4,
    });
    expect(
      countUsers([entry('a', 9)], { shard: undefined, count: 4, now: NOW, refresh: false, expired: NONE }),
    ).toEqual({ shardUsers: undefined, usedBy: 4 });
  });
});

describe('shardEntryExpired', () => {
  const stale = entry('b', 2);

  it('a Lease renewed recently: the shard runs, its entry stands', () => {
    expect(shardEntryExpired(stale, { kind: 'found', renewedAt: NOW - 5_000, durationSeconds: 15 }, NOW)).toBe(false);
  });

  it('a Lease unrenewed for less than the grace: the entry stands (a rollout, a slow start)', () => {
    const renewedAt = NOW - 15_000 - GRACE_MS + 1_000;
    expect(shardEntryExpired(stale, { kind: 'found', renewedAt, durationSeconds: 15 }, NOW)).toBe(false);
  });

  it('a Lease unrenewed for longer than the grace: the shard is gone, its entry expires', () => {
    const renewedAt = NOW - 15_000 - GRACE_MS - 1_000;
    expect(shardEntryExpired(stale, { kind: 'found', renewedAt, durationSeconds: 15 }, NOW)).toBe(true);
  });

  it('a released Lease (1 s) still gets the grace of a default lease duration', () => {
    const renewedAt = NOW - 2 * 60_000;
    expect(shardEntryExpired(stale, { kind: 'found', renewedAt, durationSeconds: 1 }, NOW)).toBe(false);
  });

  it('no Lease: the entry expires the grace after it was last written', () => {
    const fresh = entry('b', 2, new Date(NOW - GRACE_MS + 1_000).toISOString());
    const old = entry('b', 2, new Date(NOW - GRACE_MS - 1_000).toISOString());
    expect(shardEntryExpired(fresh, { kind: 'absent' }, NOW)).toBe(false);
    expect(shardEntryExpired(old, { kind: 'absent' }, NOW)).toBe(true);
  });

  it('a Lease that could not be read never expires an entry: no release on doubt', () => {
    const ancient = entry('b', 2, '2020-01-01T00:00:00Z');
    expect(shardEntryExpired(ancient, { kind: 'unknown' }, NOW)).toBe(false);
  });
});

describe('otherShardsInUse', () => {
  const entries = [entry('a', 0), entry('b', 2), entry('c', 1), entry('gone', 4)];

  it('lists the other live shards that still count users, not its own', () => {
    expect(otherShardsInUse(entries, 'c', new Set(['gone']))).toEqual([{ shard: 'b', usedBy: 2 }]);
  });

  it('an unsharded operator sees every user itself: none', () => {
    expect(otherShardsInUse(entries, undefined, NONE)).toEqual([]);
  });
});
