// The rate budget: the token buckets of every credential, built from the published rate table,
// shared by every caller that uses the same credential (one API key is typically shared by all
// of a team's deployments, so the whole process must spend one budget).
//
// Two ways in: reserve() never waits (the operator uses it so a reconcile can requeue instead
// of holding a worker), acquire() waits in a FIFO queue driven by one timer.
import {
  AdaptiveBucket,
  DEFAULT_ADAPTATION,
  type AdaptationPolicy,
  type BucketSnapshot,
  type ServerRateState,
} from './adaptive-bucket.js';
import { AbortedError, systemClock, type Clock, type RandomSource } from './clock.js';
import { DEFAULT_SAFETY_MARGIN, validateRateLimit, type SafetyMargin } from './fixed-window-shape.js';
import {
  DEFAULT_API_KEY_ROW_ID,
  RATE_TABLE,
  type IdentityKey,
  type RateLimit,
  type RateRow,
  type Region,
} from './rate-table.js';
import { matchingRows } from './route-matcher.js';
import { onAbort } from '../../signals/abort-fanout.js';

/** How many routes' matching rows are remembered (see rowsFor). */
const MAX_REMEMBERED_ROUTES = 512;
export interface BudgetRequest {
  method: string;
  /** The path the server sees (self-hosted prefix included), without the query string. */
  path: string;
  /** Fingerprint of the credential the request carries (never the credential itself). */
  credentialFingerprint: string;
  /**
   * `bulk`: work that may wait (a deletion of a million traces) behind `interactive` work (an
   * AgentDeployment's rollout), which is the default. See BULK_HEADROOM_TOKENS.
   */
  priority?: BudgetPriority;
}

export type BudgetPriority = 'interactive' | 'bulk';

/**
 * Bulk requests take a token only when this many more remain in every bucket they draw from,
 * and queue behind every interactive waiter. So a bulk stream never leaves an interactive call
 * (which mostly uses reserve() and does not wait at all) an empty bucket: it costs the stream
 * only a one-token offset, not rate, because the bucket refills at the same speed whoever takes.
 */
export const BULK_HEADROOM_TOKENS = 1;

export interface RateLimitOverrides {
  /** Replaces the default API-key row ("Any request with x-api-key", 1000 / 10 s). */
  default?: RateLimit;
  /** Replaces rows by id (see RATE_TABLE). */
  rows?: Record<string, RateLimit>;
}

export interface RateBudgetOptions {
  /** Picks the table's column; default 'us'. */
  region?: Region;
  overrides?: RateLimitOverrides;
  safetyMargin?: SafetyMargin;
  adaptation?: Partial<AdaptationPolicy>;
  table?: readonly RateRow[];
  clock?: Clock;
  random?: RandomSource;
}

export type Reservation = { ok: true } | { ok: false; waitMs: number };

export interface BucketReport extends BucketSnapshot {
  rowId: string;
  identity: IdentityKey;
}

interface Waiter {
  buckets: AdaptiveBucket[];
  bulk: boolean;
  resolve: (waitedMs: number) => void;
  reject: (error: Error) => void;
  enqueuedAt: number;
  detach: () => void;
}

export class RateBudget {
  readonly region: Region;
  private readonly table: readonly RateRow[];
  private readonly limits = new Map<string, RateLimit>();
  private readonly buckets = new Map<string, AdaptiveBucket>();
  /** Rows per `METHOD path`: matching walks every row's pattern, and the same few routes repeat. */
  private readonly rowsByRoute = new Map<string, RateRow[]>();
  private readonly safetyMargin: SafetyMargin;
  private readonly adaptation: AdaptationPolicy;
  private readonly clock: Clock;
  private readonly random: RandomSource;
  private readonly waiters: Waiter[] = [];
  private timer: unknown;
  private timerAt = Number.POSITIVE_INFINITY;
  /** Clock ms until which bulk requests stay back (see holdBulkFor). */
  private bulkHeldUntil = Number.NEGATIVE_INFINITY;

  constructor(options: RateBudgetOptions = {}) {
    this.region = options.region ?? 'us';
    this.table = options.table ?? RATE_TABLE;
    this.safetyMargin = options.safetyMargin ?? DEFAULT_SAFETY_MARGIN;
    this.adaptation = { ...DEFAULT_ADAPTATION, ...options.adaptation };
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    for (const row of this.table) this.limits.set(row.id, row[this.region]);
    const overrides = options.overrides ?? {};
    for (const [rowId, limit] of Object.entries(overrides.rows ?? {})) {
      if (!this.limits.has(rowId)) throw new Error(`rateLimits.rows: unknown row id "${rowId}"`);
      validateRateLimit(limit, `rateLimits.rows.${rowId}`);
      this.limits.set(rowId, limit);
    }
    if (overrides.default !== undefined) {
      validateRateLimit(overrides.default, 'rateLimits.default');
      this.limits.set(DEFAULT_API_KEY_ROW_ID, overrides.default);
    }
  }

  /**
   * Keeps bulk requests back for `ms`: interactive callers refused a token were told to come back
   * within that time (the operator places them in a line, one per token). A bulk request that took
   * a token meanwhile would take one of theirs: they would find the bucket empty, go to the back
   * of the line, and the interactive work would finish later by every token the bulk stream took.
   */
  holdBulkFor(ms: number): void {
    this.bulkHeldUntil = Math.max(this.bulkHeldUntil, this.clock.now() + ms);
  }

  /** Takes one token from every matching bucket if all have one; otherwise says how long to wait. */
  reserve(request: BudgetRequest): Reservation {
    const buckets = this.bucketsFor(request);
    const now = this.clock.now();
    const bulk = request.priority === 'bulk';
    const waitMs = this.waitMs(buckets, bulk, now);
    if (waitMs > 0) {
      if (!bulk) for (const bucket of buckets) bucket.interactiveWaited(now);
      return { ok: false, waitMs };
    }
    for (const bucket of buckets) bucket.take(now);
    return { ok: true };
  }

  /** How long reserve() would make this request wait now, without taking anything. */
  peekWaitMs(request: BudgetRequest): number {
    return this.waitMs(this.bucketsFor(request), request.priority === 'bulk', this.clock.now());
  }

  /**
   * Waits until every matching bucket has a token; resolves to the ms waited. First come, first
   * served within a priority; interactive waiters go ahead of every bulk waiter.
   */
  acquire(request: BudgetRequest, signal?: AbortSignal): Promise<number> {
    const buckets = this.bucketsFor(request);
    if (signal?.aborted) return Promise.reject(new AbortedError());
    const now = this.clock.now();
    const bulk = request.priority === 'bulk';
    const ahead = bulk ? this.waiters.length : this.waiters.filter((w) => !w.bulk).length;
    if (ahead === 0 && this.waitMs(buckets, bulk, now) === 0) {
      for (const bucket of buckets) bucket.take(now);
      return Promise.resolve(0);
    }
    if (!bulk) for (const bucket of buckets) bucket.interactiveWaited(now);
    return new Promise<number>((resolve, reject) => {
      const waiter: Waiter = { buckets, bulk, resolve, reject, enqueuedAt: now, detach: () => undefined };
      if (signal) {
        // Every pass of a controller may wait here on the controller's one signal: one
        // listener for all of them (signals/abort-fanout.ts).
        waiter.detach = onAbort(signal, () => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(new AbortedError());
          this.pump();
        });
      }
      const firstBulk = this.waiters.findIndex((w) => w.bulk);
      if (bulk || firstBulk < 0) this.waiters.push(waiter);
      else this.waiters.splice(firstBulk, 0, waiter);
      this.pump();
    });
  }

  /** A 429 answered `request`, which started at `startedAt` (clock ms). */
  throttled(request: BudgetRequest, startedAt: number, retryAfterMs: number | undefined): void {
    const now = this.clock.now();
    for (const bucket of this.bucketsFor(request)) bucket.throttled(now, startedAt, retryAfterMs);
    this.pump();
  }

  /** Any other response: ends throttle streaks, and resyncs from rate-limit headers if any. */
  answered(request: BudgetRequest, serverState: ServerRateState | undefined): void {
    const now = this.clock.now();
    for (const bucket of this.bucketsFor(request)) {
      bucket.succeeded();
      if (serverState !== undefined) bucket.resync(now, serverState);
    }
  }

  /** The buckets a request draws from, for diagnostics and tests. */
  report(request: BudgetRequest): BucketReport[] {
    const now = this.clock.now();
    return this.rowsFor(request).map((row) => ({
      rowId: row.id,
      identity: row.identity,
      ...this.bucket(row, request).snapshot(now),
    }));
  }

  /** Rejects every waiter (used when the owner shuts down). */
  close(): void {
    this.clock.clearTimeout(this.timer);
    this.timerAt = Number.POSITIVE_INFINITY;
    for (const waiter of this.waiters.splice(0)) {
      waiter.detach();
      waiter.reject(new AbortedError('the rate budget was closed'));
    }
  }

  private rowsFor(request: BudgetRequest): RateRow[] {
    const route = `${request.method} ${request.path}`;
    let rows = this.rowsByRoute.get(route);
    if (rows === undefined) {
      const identities = new Set<IdentityKey>(['api-key', 'ip']);
      rows = matchingRows({ method: request.method, path: request.path, identities }, this.table);
      // Paths carry ids (one per deployment): bounded, starting afresh rather than growing.
      if (this.rowsByRoute.size >= MAX_REMEMBERED_ROUTES) this.rowsByRoute.clear();
      this.rowsByRoute.set(route, rows);
    }
    return rows;
  }

  private bucketsFor(request: BudgetRequest): AdaptiveBucket[] {
    return this.rowsFor(request).map((row) => this.bucket(row, request));
  }

  private bucket(row: RateRow, request: BudgetRequest): AdaptiveBucket {
    // The IP is the process's own and the same for every request; keys are fingerprints only.
    const identityValue = row.identity === 'ip' ? 'self' : request.credentialFingerprint;
    const key = `${row.id}|${identityValue}`;
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      const limit = this.limits.get(row.id) ?? row[this.region];
      bucket = new AdaptiveBucket(limit, this.safetyMargin, this.adaptation, this.random, this.clock.now());
      this.buckets.set(key, bucket);
    }
    return bucket;
  }

  /**
   * How long a request must wait now; bulk keeps its headroom and waits out a hold, except
   * that a full bucket of several tokens ends the hold: the reconciles it was held for are
   * late, the bucket keeps a token for each after bulk takes one, and every further token
   * would be refill thrown away (measured at the resource level by bench:data's phase 4, a
   * deletion beside a rollout backlog: docs/benchmarks.md has the figure).
   */
  private waitMs(buckets: readonly AdaptiveBucket[], bulk: boolean, now: number): number {
    if (!bulk) return maxWait(buckets, now, 0);
    const headroomWait = maxWait(buckets, now, BULK_HEADROOM_TOKENS);
    const held = this.bulkHeldUntil - now;
    if (held <= 0) return headroomWait;
    let untilFull = 0;
    for (const bucket of buckets) untilFull = Math.max(untilFull, bucket.msUntilFull(now));
    return Math.max(headroomWait, Math.ceil(Math.min(held, untilFull)));
  }

  /** Admits waiters in order while their buckets allow, then sleeps until the next could go. */
  private pump(): void {
    const now = this.clock.now();
    let nextWake = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.waiters.length;) {
      const waiter = this.waiters[i];
      if (waiter === undefined) break;
      const waitMs = this.waitMs(waiter.buckets, waiter.bulk, now);
      if (waitMs === 0) {
        for (const bucket of waiter.buckets) bucket.take(now);
        this.waiters.splice(i, 1);
        waiter.detach();
        waiter.resolve(now - waiter.enqueuedAt);
        continue;
      }
      nextWake = Math.min(nextWake, now + waitMs);
      i += 1;
    }
    if (nextWake === this.timerAt) return;
    this.clock.clearTimeout(this.timer);
    this.timerAt = nextWake;
    if (nextWake === Number.POSITIVE_INFINITY) return;
    // Timers may fire a hair early relative to the clock; pump() re-arms if nothing is ready.
    this.timer = this.clock.setTimeout(
      () => {
        this.timerAt = Number.POSITIVE_INFINITY;
        this.pump();
      },
      Math.max(1, Math.ceil(nextWake - now)),
    );
  }
}

function maxWait(buckets: readonly AdaptiveBucket[], now: number, keepTokens: number): number {
  let wait = 0;
  for (const bucket of buckets) wait = Math.max(wait, bucket.waitMs(now, keepTokens));
  return wait;
}
