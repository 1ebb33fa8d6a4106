// The reflector keeps a cache equal to the server's state through every kind of failure:
// - list (in pages), then watch from the list's resourceVersion with bookmarks and a
//   randomized timeout, so that no change between the list and the watch is missed;
// - bookmarks advance the resourceVersion, so a restarted watch resumes without a relist;
// - 410 Gone (HTTP or a watch ERROR event) means the version left the server's history:
//   relist, and emit deletes for objects gone and updates for those that changed;
// - any other error restarts with capped, jittered exponential backoff (client-node's own
//   informer stops for good on such errors, which is why this exists);
// - a watchdog restarts a watch that has been silent (no events, no bookmarks) too long,
//   the symptom of a half-open connection the server will never finish.
import type { Logger } from 'pino';
import { Backoff, type RandomSource } from '../backoff.js';
import { sleep, systemClock, type Clock, type TimerHandle } from '../clock.js';
import type { IndexedStore } from '../cache/store.js';
import { isGone, KubeApiError } from '../kube/errors.js';
import { objectKey, type KubeObject, type WatchEvent } from '../kube/objects.js';
import type { ResourceEventHandler } from './handlers.js';
import type { ListWatchSource } from './list-watch.js';

export interface ReflectorOptions<T extends KubeObject> {
  source: ListWatchSource<T>;
  store: IndexedStore<T>;
  handler: ResourceEventHandler<T>;
  /** Which cached objects this reflector's lists cover (for deletes after a relist). */
  inScope?: (object: T) => boolean;
  clock?: Clock;
  random?: RandomSource;
  logger?: Logger;
  /** List page size (default 500). */
  pageSize?: number;
  /** Watch timeout range in seconds, drawn at random per watch (default 300–600, like client-go). */
  watchTimeoutSeconds?: { min: number; max: number };
  /** Restart a watch silent for longer than this (default 5 min; bookmarks count as activity). */
  watchdogMs?: number;
  /** Backoff after errors (default 800 ms doubling to 30 s, full jitter, like client-go). */
  backoff?: { initialMs: number; maxMs: number; jitter?: number };
  /** Every period, `onResync` gets every cached object in scope (default: never). */
  resyncPeriodMs?: number;
  onResync?: (objects: T[]) => void;
  /** Report `stuck` after failing without a single success for this long (default 1 min). */
  maxFailingMs?: number;
  /**
   * The resource may not be served (a CRD installed later, or removed; no permission yet).
   * A list answered 404 or 403 is then a definite answer, "none of these": the cache is
   * empty and synced, so that nothing waits on it, and the list is tried again every
   * `recheckMs` until the resource is served. Any other error is no answer and backs off as
   * usual. Without this option a 404 is an error like any other.
   */
  mayBeAbsent?: { recheckMs: number };
}

export interface ReflectorHealth {
  description: string;
  synced: boolean;
  /**
   * Not progressing: no list, watch event or bookmark for longer than twice the watchdog, or
   * failing (list or watch errors) with no success for longer than `maxFailingMs`.
   */
  stuck: boolean;
  resourceVersion: string | undefined;
  consecutiveFailures: number;
  lastProgressAt: number | undefined;
  lastError: string | undefined;
  relists: number;
  /** Watches that ended for any reason (timeout, watchdog, error, 410) other than shutdown. */
  watchRestarts: number;
  /** The resource was not served (or not permitted) at the last list: an empty cache, looked for again. */
  absent: boolean;
}

type WatchOutcome = 'expired' | 'ended';

export class Reflector<T extends KubeObject = KubeObject> {
  private readonly source: ListWatchSource<T>;
  private readonly store: IndexedStore<T>;
  private readonly handler: ResourceEventHandler<T>;
  private readonly inScope: (object: T) => boolean;
  private readonly clock: Clock;
  private readonly random: RandomSource;
  private readonly logger: Logger | undefined;
  private readonly pageSize: number;
  private readonly timeoutRange: { min: number; max: number };
  private readonly watchdogMs: number;
  private readonly backoff: Backoff;
  private readonly resyncPeriodMs: number | undefined;
  private readonly onResync: ((objects: T[]) => void) | undefined;

  private resourceVersion: string | undefined;
  private synced = false;
  private lastProgressAt: number | undefined;
  private startedAt: number | undefined;
  private lastError: string | undefined;
  /** When the current run of failures began; undefined while the last step succeeded. */
  private failingSince: number | undefined;
  private readonly maxFailingMs: number;
  private relists = 0;
  private watchRestarts = 0;
  private readonly syncWaiters: Array<() => void> = [];
  private readonly mayBeAbsent: { recheckMs: number } | undefined;
  /** The last list said the resource is not served (404) or not permitted (403). */
  private absent = false;

  constructor(options: ReflectorOptions<T>) {
    this.source = options.source;
    this.store = options.store;
    this.handler = options.handler;
    this.inScope = options.inScope ?? (() => true);
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.logger = options.logger;
    this.pageSize = options.pageSize ?? 500;
    this.timeoutRange = options.watchTimeoutSeconds ?? { min: 300, max: 600 };
    this.watchdogMs = options.watchdogMs ?? 300_000;
    this.backoff = new Backoff({
      initialMs: options.backoff?.initialMs ?? 800,
      maxMs: options.backoff?.maxMs ?? 30_000,
      jitter: options.backoff?.jitter ?? 1,
      random: this.random,
    });
    this.resyncPeriodMs = options.resyncPeriodMs;
    this.onResync = options.onResync;
    this.maxFailingMs = options.maxFailingMs ?? 60_000;
    this.mayBeAbsent = options.mayBeAbsent;
  }

  /** Whether the resource was not served (or not permitted) at the last list. */
  get isAbsent(): boolean {
    return this.absent;
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once the first list has been applied to the cache (or `signal` aborts). */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    return new Promise((resolve) => {
      const onAbort = (): void => resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      });
    });
  }

  health(): ReflectorHealth {
    const reference = this.lastProgressAt ?? this.startedAt;
    return {
      description: this.source.description,
      synced: this.synced,
      stuck:
        (reference !== undefined && this.clock.now() - reference > 2 * this.watchdogMs) ||
        (this.failingSince !== undefined && this.clock.now() - this.failingSince > this.maxFailingMs),
      resourceVersion: this.resourceVersion,
      consecutiveFailures: this.backoff.consecutiveFailures,
      lastProgressAt: this.lastProgressAt,
      lastError: this.lastError,
      relists: this.relists,
      watchRestarts: this.watchRestarts,
      absent: this.absent,
    };
  }

  /** Runs until `signal` aborts; never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    this.startedAt = this.clock.now();
    const stopResync = this.startResync(signal);
    let needList = true;
    let eventsSinceList = 0;
    try {
      while (!signal.aborted) {
        try {
          if (needList) {
            await this.listAndReplace(signal);
            needList = false;
            eventsSinceList = 0;
          }
          const outcome = await this.watchOnce(signal, () => (eventsSinceList += 1));
          if (outcome === 'expired') {
            needList = true;
            // A 410 right after a fresh list means the server keeps no useful history; back
            // off instead of relisting in a tight loop.
            if (eventsSinceList === 0) await this.pause(signal, 'watch expired right after a list');
          }
        } catch (error) {
          if (signal.aborted) break;
          if (this.mayBeAbsent !== undefined && notServed(error)) {
            needList = true;
            await this.recordAbsent(signal, error, this.mayBeAbsent.recheckMs);
            continue;
          }
          // A watch's 410 means "relist now"; a list's 410 (an expired continue token) would
          // loop if retried at once, so it backs off like any other failure.
          const watchExpired = isGone(error) && !needList;
          needList ||= isGone(error);
          if (!watchExpired) await this.pause(signal, describeError(error));
        }
      }
    } finally {
      stopResync();
    }
  }

  /**
   * "Not served" is an answer: the cache holds none of these (deleting what a removed CRD
   * left), counts as synced, and the list is tried again later, without a failure.
   */
  private async recordAbsent(signal: AbortSignal, error: unknown, recheckMs: number): Promise<void> {
    if (!this.absent) {
      this.logger?.info(
        { source: this.source.description, recheckMs, reason: describeError(error) },
        'resource not served (or not permitted); its cache stays empty and it is looked for again',
      );
    }
    this.absent = true;
    this.lastError = undefined;
    const change = this.store.replace([], this.inScope);
    for (const object of change.deleted) this.handler.onDelete?.(object);
    this.resourceVersion = undefined;
    this.progress();
    this.backoff.reset();
    this.failingSince = undefined;
    this.markSynced();
    await sleep(this.clock, recheckMs, signal);
  }

  private markSynced(): void {
    if (this.synced) return;
    this.synced = true;
    this.syncWaiters.splice(0).forEach((wake) => wake());
  }

  private async pause(signal: AbortSignal, reason: string): Promise<void> {
    this.lastError = reason;
    this.failingSince ??= this.clock.now();
    const delay = this.backoff.next();
    this.logger?.warn(
      { source: this.source.description, delayMs: Math.round(delay), error: reason },
      'reflector backing off',
    );
    await sleep(this.clock, delay, signal);
  }

  private async listAndReplace(signal: AbortSignal): Promise<void> {
    const items: T[] = [];
    let page = await this.source.list({ limit: this.pageSize, signal });
    const resourceVersion = page.resourceVersion;
    items.push(...page.items);
    while (page.continue !== undefined) {
      page = await this.source.list({ limit: this.pageSize, continue: page.continue, signal });
      items.push(...page.items);
    }
    if (signal.aborted) return;
    const change = this.store.replace(items, this.inScope);
    this.resourceVersion = resourceVersion;
    this.relists += 1;
    this.progress();
    this.backoff.reset();
    this.failingSince = undefined;
    for (const object of change.added) this.handler.onAdd?.(object);
    for (const { old, current } of change.updated) this.handler.onUpdate?.(old, current);
    for (const object of change.deleted) this.handler.onDelete?.(object);
    if (this.absent) {
      this.absent = false;
      this.logger?.info({ source: this.source.description }, 'resource now served; caching it');
    }
    this.markSynced();
  }

  private async watchOnce(signal: AbortSignal, onEvent: () => void): Promise<WatchOutcome> {
    const resourceVersion = this.resourceVersion;
    if (resourceVersion === undefined) return 'expired';
    const controller = new AbortController();
    const stopWatchdog = this.startWatchdog(controller);
    const onAbort = (): void => controller.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const { min, max } = this.timeoutRange;
      const timeoutSeconds = Math.round(min + (max - min) * this.random());
      const events = await this.source.watch({ resourceVersion, timeoutSeconds, signal: controller.signal });
      this.progress();
      for await (const event of events) {
        this.progress();
        if (event.type === 'ERROR') {
          if (
            event.status.code === 410 ||
            event.status.reason === 'Expired' ||
            event.status.reason === 'Gone'
          )
            return 'expired';
          throw new KubeApiError(
            event.status.code ?? 500,
            event.status.reason ?? 'WatchError',
            `watch error: ${event.status.message ?? 'unknown'}`,
          );
        }
        onEvent();
        this.apply(event);
        // A watch that delivers events is healthy: later failures start backing off afresh.
        this.backoff.reset();
        this.failingSince = undefined;
      }
      return 'ended';
    } catch (error) {
      // The watchdog aborted a silent watch: restart it from the last version at once.
      if (controller.signal.aborted && !signal.aborted) {
        this.logger?.info({ source: this.source.description }, 'watch silent for too long; restarting it');
        return 'ended';
      }
      throw error;
    } finally {
      if (!signal.aborted) this.watchRestarts += 1;
      signal.removeEventListener('abort', onAbort);
      stopWatchdog();
      controller.abort();
    }
  }

  private apply(event: Exclude<WatchEvent<T>, { type: 'ERROR' }>): void {
    const version = event.object.metadata.resourceVersion;
    if (event.type === 'BOOKMARK') {
      if (version) this.resourceVersion = version;
      return;
    }
    if (event.type === 'DELETED') {
      // The event carries the object's final state, fresher than the cached one.
      this.store.delete(objectKey(event.object));
      this.handler.onDelete?.(event.object);
    } else {
      const old = this.store.upsert(event.object);
      if (old) this.handler.onUpdate?.(old, event.object);
      else this.handler.onAdd?.(event.object);
    }
    if (version) this.resourceVersion = version;
  }

  private progress(): void {
    this.lastProgressAt = this.clock.now();
  }

  private startWatchdog(controller: AbortController): () => void {
    let handle: TimerHandle | undefined;
    const check = (): void => {
      const silentFor = this.clock.now() - (this.lastProgressAt ?? 0);
      if (silentFor >= this.watchdogMs) {
        controller.abort();
        return;
      }
      handle = this.clock.setTimeout(check, this.watchdogMs - silentFor);
    };
    handle = this.clock.setTimeout(check, this.watchdogMs);
    return () => {
      if (handle !== undefined) this.clock.clearTimeout(handle);
    };
  }

  private startResync(signal: AbortSignal): () => void {
    const period = this.resyncPeriodMs;
    const onResync = this.onResync;
    if (period === undefined || !(period > 0) || !onResync) return () => undefined;
    let handle: TimerHandle | undefined;
    const tick = (): void => {
      if (signal.aborted) return;
      if (this.synced) onResync(this.store.list().filter(this.inScope));
      handle = this.clock.setTimeout(tick, period);
    };
    handle = this.clock.setTimeout(tick, period);
    return () => {
      if (handle !== undefined) this.clock.clearTimeout(handle);
    };
  }
}

/** 404 (the resource is not served: no CRD) or 403 (no permission for it). */
function notServed(error: unknown): boolean {
  return error instanceof KubeApiError && (error.statusCode === 404 || error.statusCode === 403);
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
