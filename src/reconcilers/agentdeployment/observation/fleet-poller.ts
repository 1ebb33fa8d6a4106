// Batched observation of every tracked deployment. Instead of one GET per object per poll
// (what the official Terraform provider does), the poller refreshes up to 100 deployments
// per `GET /v2/deployments?deployment_ids=...` call, so that following N in-flight
// revisions costs N/100 calls per round and a resync of 10,000 objects costs 100 calls.
// It turns the control plane into an event source: a key is enqueued only when its
// observation changed, when it was asked for, or when its resync is due.
// A deployment that can change by itself (source_config.build_on_push: a push makes a new
// revision) is followed in a third mode, 'follow': listed every pushPollMs (default 10 s) so
// that a pushed revision is seen within seconds, its object woken only when it changed, and
// resynced at the steady period like any other. Such lists wait until a full batch is due
// or the oldest is a quarter interval late, and ids due soon ride along, so that following
// N deployments costs about N/100 calls per interval (bench/steady/poller-rounds.ts --follow).
// A new revision also gets early looks, at a quarter, half and three quarters of the in-flight
// interval, when the lane says its budget has calls no create is waiting for (earlyLookHeadroom): a
// build that is quick is seen then instead of a whole interval after its create, and a slow one
// costs three list calls a rollout more, shared by every id created around it.
// Every failed round (401, 5xx, a reset) backs off, capped and jittered, like any other
// client of a struggling server; `lastFailure` lets reconciles show it in status.
import { Backoff } from '../../../runtime/backoff.js';
import { DEFAULT_TIMINGS } from '../defaults.js';
import type { ControlPlanePort, Failure } from '../ports.js';
import { observationChanged, type ObservationCache } from './observation-cache.js';

export type TrackMode = 'inflight' | 'steady' | 'follow';

interface Tracked {
  key: string;
  mode: TrackMode;
  nextPollAt: number;
  /** 'follow': when its object is due for a resync although nothing changed. */
  resyncAt?: number;
  /** Asked for by a reconcile that had no fresh observation: fetch at the next tick. */
  wanted: boolean;
  /** Wanted only by passes over settled objects (see WantPriority). */
  background?: boolean;
  /** 'inflight' after a track: when its revision began, for its early looks (see EARLY_LOOK_SHARES). */
  inflightSince?: number;
  /** Its next early look, if it has one left. */
  earlyLookAt?: number;
}

/**
 * 'low': the pass that wants it is over a settled object (a new leader's first look at each,
 * a resync): its id is listed after the rollouts in flight, so that a new leader's thousands
 * of first looks do not hold back the rollout of an object created meanwhile.
 */
export type WantPriority = 'normal' | 'low';

export interface FleetPollerOptions {
  /** With budgetHeadroom, rounds are coalesced only while the budget is short (see COALESCE_SHARE). */
  controlPlane: Pick<ControlPlanePort, 'listDeploymentsByIds'> &
    Partial<Pick<ControlPlanePort, 'budgetHeadroom'>>;
  cache: ObservationCache;
  enqueue: (key: string) => void;
  now?: () => number;
  random?: () => number;
  /** How often an in-flight deployment (a revision not yet active) is refreshed. */
  inflightPollMs?: number;
  /** How often a settled deployment is refreshed and its object resynced. */
  resyncPeriodMs?: number;
  /** How often a deployment that builds on push is refreshed (mode 'follow'). */
  pushPollMs?: number;
  tickMs?: number;
  maxConcurrentLists?: number;
  /** Whether rounds may be coalesced on a short budget (see COALESCE_SHARE); default always. */
  coalesce?: () => boolean;
  /**
   * Share of the budget free for early looks at new revisions now, 0..1 (see
   * EARLY_LOOK_SHARES): 0 while a create waits for the key. They go when it is not short (see
   * SHORT_BUDGET_HEADROOM); none is made without it. Read at most once a round.
   */
  earlyLookHeadroom?: () => number;
  /** Backoff after a failed round (default 1 s doubling to 60 s, full jitter). */
  backoff?: { initialMs: number; maxMs: number };
  /** Every failed round, with its failure; `undefined` when a round succeeds again. */
  onHealthChange?: (failure: Failure | undefined) => void;
  onError?: (message: string) => void;
}

export const MAX_IDS_PER_LIST = 100;
/** How far ahead of its resync a settled deployment may join a list call that is made anyway. */
const EARLY_RESYNC_SHARE = 0.1;
/**
 * In-flight deployments come due one by one (their creates were spread over time by the rate
 * budget), so a round every tick would list a handful of ids each time: on a saturated key,
 * 100 calls where 30 do. Instead a round waits until its oldest due id is this share of the
 * poll interval late (or a full list is due, or a reconcile wants one), and in-flight ids due
 * within EARLY_INFLIGHT_SHARE of the interval ride along. An id is then observed at most a
 * quarter interval late and never more often than it asked. Only while the budget is short:
 * with tokens to spare (the last creates of a wave are out), a call costs no create its
 * token, and polling at once shows the last deployments Ready sooner.
 */
const COALESCE_SHARE = 0.25;
const EARLY_INFLIGHT_SHARE = 0.5;
/** The budget is short below this share free (RateBudget's emptiest bucket). */
const SHORT_BUDGET_HEADROOM = 0.5;
/**
 * Followed ids (build on push) are a background cadence: their lists always wait for a full
 * batch or until the oldest due id is this share of pushPollMs late, and followed ids due
 * within FOLLOW_EARLY_SHARE ride along, so that their due times fall into step.
 */
const FOLLOW_COALESCE_SHARE = 0.25;
const FOLLOW_EARLY_SHARE = 0.5;
/**
 * A revision tracked in flight is looked at early, at these shares of the in-flight interval
 * after its create or patch, when the lane has budget to spare (FleetPollerOptions.earlyLookHeadroom);
 * its regular looks stay where they were (the interval after tracking, then every interval).
 * Builds of about a second (a small image, the emulators) are then seen within a quarter
 * interval instead of a whole one. A look made late (the budget was not spare at its time:
 * the last creates of a wave hold it for half a second) counts for every share it came after;
 * the next share still gets its own, for the builds that end just after that look.
 */
const EARLY_LOOK_SHARES = [0.25, 0.5, 0.75] as const;

export class FleetPoller {
  private readonly tracked = new Map<string, Tracked>();
  /**
   * How many tracked ids are in each mode, and which ids each key owns: kept as entries change,
   * because a create asks for the in-flight count and a departing key for its ids, and
   * counting over every tracked id each time made a burst of N creates cost N x N.
   */
  private readonly modeCounts: Record<TrackMode, number> = { inflight: 0, steady: 0, follow: 0 };
  private readonly idsByKey = new Map<string, Set<string>>();
  /**
   * No tracked id is due before this time: a tick earlier than it returns without looking at
   * every id (10,000 of them five times a second in a settled fleet). The last full look sets
   * it; whatever brings an id's turn forward between rounds (track, want) lowers it. A round
   * that lists leaves it at the round's start, so its refreshes need not touch it.
   */
  private earliestDueAt = Number.NEGATIVE_INFINITY;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly inflightPollMs: number;
  private readonly resyncPeriodMs: number;
  private readonly pushPollMs: number;
  private readonly tickMs: number;
  private readonly maxConcurrentLists: number;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private pausedUntil = 0;
  private stopped = true;
  private readonly backoff: Backoff;
  private failure: Failure | undefined;
  private lists = new AbortController();
  /** Wanted ids left for later rounds by the last round, and how long that round took. */
  private wantedBacklog = 0;
  private lastListMs = 0;

  constructor(private readonly options: FleetPollerOptions) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.inflightPollMs = options.inflightPollMs ?? DEFAULT_TIMINGS.inflightPollMs;
    this.resyncPeriodMs = options.resyncPeriodMs ?? DEFAULT_TIMINGS.resyncPeriodMs;
    this.pushPollMs = options.pushPollMs ?? DEFAULT_TIMINGS.pushPollMs;
    this.tickMs = options.tickMs ?? 200;
    this.maxConcurrentLists = options.maxConcurrentLists ?? 2;
    this.backoff = new Backoff({
      initialMs: options.backoff?.initialMs ?? 1_000,
      maxMs: options.backoff?.maxMs ?? 60_000,
      jitter: 1,
      random: this.random,
    });
  }

  /** The failure of the last round, while rounds fail. */
  get lastFailure(): Failure | undefined {
    return this.failure;
  }

  /** Follows `id` for `key`. Switching to in-flight brings the next poll forward. */
  track(id: string, key: string, mode: TrackMode): void {
    const existing = this.tracked.get(id);
    if (existing && existing.mode === mode && existing.key === key) return;
    const nextPollAt = this.nextPollTime(mode);
    // A revision begins (a create, a patch) when its id comes to be tracked in flight; one
    // already in flight that changes key keeps its looks.
    const stillInflight = mode === 'inflight' && existing?.mode === 'inflight';
    const since = mode === 'inflight' ? (stillInflight ? existing.inflightSince : this.now()) : undefined;
    const earlyLookAt = stillInflight
      ? existing.earlyLookAt
      : since === undefined
        ? undefined
        : this.earlyLookAfter(since, Number.NEGATIVE_INFINITY, nextPollAt);
    this.store(id, existing, {
      key,
      mode,
      wanted: existing?.wanted ?? false,
      // A low want stays low when the id changes mode (a settled object's pass tracks it).
      ...(existing?.background === true ? { background: true } : {}),
      nextPollAt: existing ? Math.min(existing.nextPollAt, nextPollAt) : nextPollAt,
      ...(mode === 'follow' ? { resyncAt: existing?.resyncAt ?? this.nextResyncTime() } : {}),
      ...(since === undefined ? {} : { inflightSince: since }),
      ...(earlyLookAt === undefined ? {} : { earlyLookAt }),
    });
  }

  /** Asks for an observation of `id` as soon as possible; `key` is enqueued when it arrives. */
  want(id: string, key: string, priority: WantPriority = 'normal'): void {
    const existing = this.tracked.get(id);
    // Low only while every want since the last look was low.
    const background = priority === 'low' && (existing?.wanted !== true || existing.background === true);
    if (existing?.key === key) {
      existing.wanted = true;
      existing.background = background;
      this.dueBy(Number.NEGATIVE_INFINITY);
    } else if (existing) {
      this.store(id, existing, { ...existing, wanted: true, background, key });
    } else {
      this.store(id, undefined, { key, mode: 'inflight', wanted: true, background, nextPollAt: this.now() });
    }
  }

  /** Some id is due at `at`: the next tick from then looks. */
  private dueBy(at: number): void {
    if (at < this.earliestDueAt) this.earliestDueAt = at;
  }

  /** Puts `entry` in `previous`'s place, keeping the counts and the key index in step. */
  private store(id: string, previous: Tracked | undefined, entry: Tracked): void {
    if (previous !== undefined) this.unindex(id, previous);
    this.tracked.set(id, entry);
    this.dueBy(
      entry.wanted
        ? Number.NEGATIVE_INFINITY
        : Math.min(entry.nextPollAt, entry.earlyLookAt ?? Number.POSITIVE_INFINITY),
    );
    this.modeCounts[entry.mode] += 1;
    let ids = this.idsByKey.get(entry.key);
    if (ids === undefined) this.idsByKey.set(entry.key, (ids = new Set()));
    ids.add(id);
  }

  private unindex(id: string, entry: Tracked): void {
    this.modeCounts[entry.mode] -= 1;
    const ids = this.idsByKey.get(entry.key);
    ids?.delete(id);
    if (ids?.size === 0) this.idsByKey.delete(entry.key);
  }

  /** The key the poller wakes for `id`, if it follows it. */
  followerOf(id: string): string | undefined {
    return this.tracked.get(id)?.key;
  }

  untrack(id: string): void {
    const entry = this.tracked.get(id);
    if (entry !== undefined) this.unindex(id, entry);
    this.tracked.delete(id);
    this.options.cache.forget(id);
  }

  /** Stops following whatever `key` owned: its object is gone (even without our finalizer). */
  untrackKey(key: string): void {
    for (const id of [...(this.idsByKey.get(key) ?? [])]) this.untrack(id);
  }

  get trackedCount(): number {
    return this.tracked.size;
  }

  get followedCount(): number {
    return this.modeCounts.follow;
  }

  get inflightCount(): number {
    return this.modeCounts.inflight;
  }

  /**
   * How long a want made now may wait for its list: the rounds the wanted ids left by the last
   * round need (maxConcurrentLists x 100 a round), each a tick plus its lists' time. A pass that
   * wants an observation comes back after this as well as when it arrives (its safety net):
   * with a new leader's 100,000 first looks a fixed few seconds would bring every one of them
   * back many times before its turn.
   */
  wantWaitEstimateMs(): number {
    const perRound = MAX_IDS_PER_LIST * this.maxConcurrentLists;
    return Math.ceil(this.wantedBacklog / perRound) * (this.tickMs + this.lastListMs);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.lists = new AbortController();
    this.schedule();
  }

  /** Stops polling; a list in flight is aborted (the lease may already be another's). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.lists.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.ticking;
  }

  /** One round: refresh everything due, in batches. Exposed for tests and benchmarks. */
  async tick(): Promise<void> {
    const now = this.now();
    if (now < this.pausedUntil || now < this.earliestDueAt) return;
    // Due ids by rank (see rankOf): the round takes from the first ranks, in tracking order
    // within each, with no sort (a new leader has 100,000 wanted at once).
    const dueByRank: string[][] = [[], [], [], []];
    let dueCount = 0;
    // Settled deployments whose resync is near: they ride along in a list call that is
    // made anyway. Without this, jittered resync times spread out over the periods until
    // every tick lists a handful of ids, and a resync costs up to one call per tick
    // instead of N/100 calls (measured by bench/steady/poller-rounds.ts).
    const early: Array<{ id: string; at: number }> = [];
    const earlyHorizon = now + this.resyncPeriodMs * EARLY_RESYNC_SHARE;
    // Decided before the ids are ranked: in-flight ids ride along early only when rounds are
    // coalesced, since an id polled early waits a whole interval for its next look.
    const budgetShort =
      (this.options.coalesce?.() ?? true) &&
      (this.options.controlPlane.budgetHeadroom?.() ?? 0) < SHORT_BUDGET_HEADROOM;
    const earlyInflightHorizon = budgetShort ? now + this.inflightPollMs * EARLY_INFLIGHT_SHARE : now;
    const followHorizon = now + this.pushPollMs * FOLLOW_EARLY_SHARE;
    let wantedDue = 0;
    let oldestDueAt = now;
    let urgent = 0;
    let oldestFollowDueAt = now;
    let nextDueAt = Number.POSITIVE_INFINITY;
    // Early looks (EARLY_LOOK_SHARES) due now, and whether the lane allows them (asked once).
    const earlyLooks = new Set<string>();
    let earlyAllowed: boolean | undefined;
    for (const [id, entry] of this.tracked) {
      if (
        !entry.wanted &&
        entry.nextPollAt > now &&
        entry.earlyLookAt !== undefined &&
        entry.earlyLookAt <= now
      ) {
        earlyAllowed ??= (this.options.earlyLookHeadroom?.() ?? 0) >= SHORT_BUDGET_HEADROOM;
        if (earlyAllowed) {
          dueByRank[INFLIGHT]?.push(id);
          dueCount += 1;
          earlyLooks.add(id);
          continue;
        }
        // Not now: the next tick asks again (until its look or its regular poll); meanwhile
        // it may ride along in a round as any id due soon.
      }
      if (entry.wanted || entry.nextPollAt <= now) {
        dueByRank[rankOf(entry)]?.push(id);
        dueCount += 1;
        if (entry.wanted) wantedDue += 1;
        if (entry.mode === 'follow' && !entry.wanted) {
          oldestFollowDueAt = Math.min(oldestFollowDueAt, entry.nextPollAt);
        } else {
          urgent += 1;
          oldestDueAt = Math.min(oldestDueAt, entry.nextPollAt);
        }
      } else {
        nextDueAt = Math.min(nextDueAt, entry.nextPollAt, entry.earlyLookAt ?? Number.POSITIVE_INFINITY);
        if (
          entry.nextPollAt <=
          this.earlyHorizonOf(entry.mode, earlyHorizon, earlyInflightHorizon, followHorizon)
        )
          early.push({ id, at: entry.nextPollAt });
      }
    }
    // Set before any await: an id brought forward while this round lists lowers it again. A
    // round with ids due keeps it at now, so the next tick looks again whatever became of this
    // round's lists (answered, failed, thrown, aborted, or left for a later tick).
    this.earliestDueAt = dueCount === 0 ? nextDueAt : now;
    this.wantedBacklog = wantedDue;
    if (dueCount === 0) return;
    // Only followed ids are due: wait for a full batch or a quarter interval (see FOLLOW_COALESCE_SHARE).
    if (
      urgent === 0 &&
      earlyLooks.size === 0 &&
      dueCount < MAX_IDS_PER_LIST &&
      now - oldestFollowDueAt < this.pushPollMs * FOLLOW_COALESCE_SHARE
    )
      return;
    // Early looks go at once: they are made only from budget nobody waits for.
    const coalescing =
      urgent > 0 &&
      budgetShort &&
      wantedDue === 0 &&
      earlyLooks.size === 0 &&
      dueCount < MAX_IDS_PER_LIST &&
      now - oldestDueAt < this.inflightPollMs * COALESCE_SHARE;
    if (coalescing) return;
    // Wanted ids first (a reconcile is waiting for them), then rollouts in flight, then the
    // wants of passes over settled objects, then resyncs; in tracking order within each.
    const room = this.maxConcurrentLists * MAX_IDS_PER_LIST;
    const chosen: string[] = [];
    let listedWanted = 0;
    for (const [rank, ids] of dueByRank.entries()) {
      const taken = ids.slice(0, room - chosen.length);
      chosen.push(...taken);
      if (rank === WANTED || rank === WANTED_LOW) listedWanted += taken.length;
    }
    const batches: string[][] = [];
    for (let i = 0; i < chosen.length; i += MAX_IDS_PER_LIST) {
      batches.push(chosen.slice(i, i + MAX_IDS_PER_LIST));
    }
    const last = batches[batches.length - 1];
    if (last && last.length < MAX_IDS_PER_LIST && early.length > 0) {
      early.sort((a, b) => a.at - b.at);
      last.push(...early.slice(0, MAX_IDS_PER_LIST - last.length).map(({ id }) => id));
    }
    this.wantedBacklog = wantedDue - listedWanted;
    await Promise.all(batches.map((ids) => this.refresh(ids, earlyLooks)));
    this.lastListMs = this.now() - now;
  }

  /** `earlyLooks`: the ids listed for an early look, whose regular poll stays where it was. */
  private async refresh(ids: string[], earlyLooks: ReadonlySet<string>): Promise<void> {
    const signal = this.lists.signal;
    const result = await this.options.controlPlane.listDeploymentsByIds(ids, signal);
    const now = this.now();
    if (signal.aborted) return;
    if (!result.ok) {
      // Throttled says how long; anything else backs off exponentially.
      const wait =
        result.error.kind === 'Throttled' ? (result.error.retryAfterMs ?? this.tickMs) : this.backoff.next();
      this.pausedUntil = Math.max(this.pausedUntil, now + wait);
      if (result.error.kind !== 'Throttled') {
        this.failure = result.error;
        this.options.onHealthChange?.(result.error);
      }
      this.options.onError?.(`batched observation failed: ${result.error.message}`);
      return;
    }
    this.backoff.reset();
    if (this.failure) {
      this.failure = undefined;
      this.options.onHealthChange?.(undefined);
    }
    const found = new Set<string>();
    for (const deployment of result.value) {
      found.add(deployment.id);
      const previous = this.options.cache.recordPresent(deployment, now);
      this.afterRefresh(
        deployment.id,
        observationChanged(previous, { kind: 'present', deployment, observedAt: now }),
        earlyLooks.has(deployment.id),
      );
    }
    for (const id of ids) {
      if (found.has(id)) continue;
      const previous = this.options.cache.recordMissing(id, now);
      this.afterRefresh(id, previous?.kind !== 'missing', earlyLooks.has(id));
    }
  }

  private afterRefresh(id: string, changed: boolean, earlyLook: boolean): void {
    const entry = this.tracked.get(id);
    if (!entry) return;
    const now = this.now();
    const wasWanted = entry.wanted;
    let resyncDue = entry.mode === 'steady';
    if (entry.mode === 'follow' && entry.resyncAt !== undefined && entry.resyncAt <= now) {
      resyncDue = true;
      entry.resyncAt = this.nextResyncTime();
    }
    entry.wanted = false;
    entry.background = false;
    if (!earlyLook || entry.mode !== 'inflight') entry.nextPollAt = this.nextPollTime(entry.mode);
    entry.earlyLookAt =
      entry.mode === 'inflight' && entry.inflightSince !== undefined
        ? this.earlyLookAfter(entry.inflightSince, now, entry.nextPollAt)
        : undefined;
    if (changed || wasWanted || resyncDue) this.options.enqueue(entry.key);
  }

  /**
   * The next early look of a revision begun at `since`, after a look at `lookedAt`: the first
   * share after that look and before `nextPollAt`, if any.
   */
  private earlyLookAfter(since: number, lookedAt: number, nextPollAt: number): number | undefined {
    for (const share of EARLY_LOOK_SHARES) {
      const at = since + share * this.inflightPollMs;
      if (at > lookedAt && at < nextPollAt) return at;
    }
    return undefined;
  }

  private earlyHorizonOf(mode: TrackMode, steady: number, inflight: number, follow: number): number {
    if (mode === 'steady') return steady;
    return mode === 'follow' ? follow : inflight;
  }

  private nextResyncTime(): number {
    return this.now() + this.resyncPeriodMs * (0.9 + 0.2 * this.random());
  }

  private nextPollTime(mode: TrackMode): number {
    if (mode === 'inflight') return this.now() + this.inflightPollMs;
    if (mode === 'follow') return this.now() + this.pushPollMs;
    // Jitter of +-10% spreads the resync of objects created together over time.
    return this.now() + this.resyncPeriodMs * (0.9 + 0.2 * this.random());
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.ticking = this.tick()
        .catch((error: unknown) => this.options.onError?.(`poller tick failed: ${String(error)}`))
        .finally(() => {
          this.ticking = undefined;
          this.schedule();
        });
    }, this.tickMs);
    this.timer.unref();
  }
}

const WANTED = 0;
const INFLIGHT = 1;
const WANTED_LOW = 2;
const OTHER = 3;

/** The order of a due id in a round (lower first), see tick. */
function rankOf(entry: Tracked): number {
  if (entry.wanted) return entry.background === true ? WANTED_LOW : WANTED;
  return entry.mode === 'inflight' ? INFLIGHT : OTHER;
}
