// A connection's users counted across every shard, as pure functions. Connections are not
// sharded: every shard's leader reconciles every connection but sees only its own shard's
// AgentDeployments. So each shard keeps its own entry in `status.shardUsers` and `usedBy` is
// their sum; a deleting connection is released only when no live shard's entry says it is used.
//
// Whether a shard still runs is Kubernetes' to say, through the shard's Lease
// (`<leader-election-id>-<shard>`): an entry expires once that Lease has not been renewed (or
// has been absent) for SHARD_ENTRY_EXPIRY_LEASES lease durations. Nothing of our own keeps
// membership.
import type { ShardUsers } from '../../api/connection/index.js';

/** What one shard's Lease says about whether the shard runs. */
export type ShardLease =
  /** The Lease as read: when it was last renewed (epoch ms) and for how long (s). */
  | { kind: 'found'; renewedAt: number | undefined; durationSeconds: number }
  /** No such Lease. */
  | { kind: 'absent' }
  /** It could not be read (no permission, API error): the entry is kept, never dropped on doubt. */
  | { kind: 'unknown' };

/** The elector's default lease duration, and the floor of a released Lease's (which says 1 s). */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
/**
 * How many lease durations a shard's Lease may stay unrenewed (or absent) before its entry
 * expires: 40 x 15 s = 10 minutes. Long enough to outlast a shard's rollout with a slow image
 * pull, and twice the probe interval, so that a shard without a Lease (run without
 * --leader-elect) refreshes its entry's observedAt before it would expire.
 */
export const SHARD_ENTRY_EXPIRY_LEASES = 40;

/**
 * Whether `entry`'s shard has stopped running: its Lease ended (renewTime + duration) more than
 * SHARD_ENTRY_EXPIRY_LEASES durations ago; an absent Lease counts as ended when the entry was
 * last written, the last moment that shard is known to have run.
 */
export function shardEntryExpired(entry: ShardUsers, lease: ShardLease, now: number): boolean {
  if (lease.kind === 'unknown') return false;
  const durationMs =
    lease.kind === 'found'
      ? Math.max(lease.durationSeconds * 1000, DEFAULT_LEASE_DURATION_MS)
      : DEFAULT_LEASE_DURATION_MS;
  const observedAt = Date.parse(entry.observedAt);
  const endedAt =
    lease.kind === 'found' && lease.renewedAt !== undefined
      ? lease.renewedAt + lease.durationSeconds * 1000
      : observedAt;
  if (Number.isNaN(endedAt)) return false;
  return now - endedAt > SHARD_ENTRY_EXPIRY_LEASES * durationMs;
}

export interface ShardCount {
  /** This process's shard (--shard); undefined when the operator is not sharded. */
  shard: string | undefined;
  /** This shard's fresh count of the connection's users. */
  count: number;
  now: number;
  /** Stamp observedAt even if the count is unchanged (at a probe, which writes anyway). */
  refresh: boolean;
  /** Shards whose entries have expired (shardEntryExpired): dropped. */
  expired: ReadonlySet<string>;
}

export interface CountedUsers {
  /** undefined: the status carries no entries (the operator is not sharded). */
  shardUsers: ShardUsers[] | undefined;
  /** All users in the cluster. */
  usedBy: number;
}

/**
 * The status fields that count users, from the entries as read and this shard's fresh count:
 * this shard's entry replaced, expired entries dropped, the others kept as read, sorted by shard.
 * An unsharded operator sees every object: its count is the total, and it keeps no entries
 * (any left from a sharded past are dropped).
 */
export function countUsers(current: readonly ShardUsers[] | undefined, own: ShardCount): CountedUsers {
  if (own.shard === undefined) return { shardUsers: undefined, usedBy: own.count };
  const previous = current?.find((entry) => entry.shard === own.shard);
  const observedAt =
    previous !== undefined && previous.usedBy === own.count && !own.refresh
      ? previous.observedAt
      : new Date(own.now).toISOString();
  const others = (current ?? []).filter(
    (entry) => entry.shard !== own.shard && !own.expired.has(entry.shard),
  );
  const shardUsers = [...others, { shard: own.shard, usedBy: own.count, observedAt }].sort((a, b) =>
    a.shard < b.shard ? -1 : a.shard > b.shard ? 1 : 0,
  );
  return { shardUsers, usedBy: shardUsers.reduce((sum, entry) => sum + entry.usedBy, 0) };
}

/**
 * The other shards whose entries say they still use the connection, leaving out expired ones:
 * a deleting connection waits for them.
 */
export function otherShardsInUse(
  current: readonly ShardUsers[] | undefined,
  shard: string | undefined,
  expired: ReadonlySet<string>,
): Array<{ shard: string; usedBy: number }> {
  if (shard === undefined) return [];
  return (current ?? [])
    .filter((entry) => entry.shard !== shard && entry.usedBy > 0 && !expired.has(entry.shard))
    .map(({ shard: name, usedBy }) => ({ shard: name, usedBy }));
}
