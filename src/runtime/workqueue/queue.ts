// A work queue with client-go's semantics, the heart of "level-triggered" reconciliation:
// - it holds keys, not objects, and a key waiting in the queue is held once (dedupe);
// - a key is handed to one worker at a time: adding it while it is being processed marks it
//   dirty, and it is queued again when that worker calls `done`;
// - failures requeue through a rate limiter (per-key backoff plus an overall bucket);
// - `addAfter` schedules a later look, and the earliest requested time wins;
// - with `shardOf`, ready keys are handed out fairly across shards (FairReadyList), each
//   shard's turn as long as `shardTurnSizeOf` says, and with `flowOf` fairly across the
//   flows of a shard;
// - a key added at low priority waits until no normal key is ready, as in controller-runtime's
//   priority queue: the initial list and resyncs of settled objects are low, so a key that
//   changed (a new object, an edit) is not served behind thousands being adopted. A normal
//   add of a low key raises it.
import type { Registry } from 'prom-client';
import { systemClock, type Clock, type TimerHandle } from '../clock.js';
import { DueHeap } from './due-heap.js';
import { FairReadyList } from './fair-ready-list.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.js';
import { workQueueMetrics, type WorkQueueMetrics } from './metrics.js';

export interface WorkQueueOptions {
  /** The `name` label of the workqueue metrics. */
  name: string;
  clock?: Clock;
  rateLimiter?: RateLimiter;
  /** Metrics are published only when a registry is given. */
  registry?: Registry;
  /** The shard of a key: ready keys are served shard by shard in turn; default one shard (FIFO). */
  shardOf?: (key: string) => string;
  /**
   * How many keys a shard hands out in a row when its turn comes, asked of the key that begins
   * the turn (FairReadyList); default one: plain round robin.
   */
  shardTurnSizeOf?: (key: string) => number;
  /**
   * The flow of a key within its shard: a shard's keys are served flow by flow in turn, one key
   * each (the controller's flows are namespaces); default one flow (FIFO within a shard).
   */
  flowOf?: (key: string) => string;
}

/** 'low': served only when no normal key is ready (a start's initial list, a resync). */
export type Priority = 'normal' | 'low';

export class WorkQueue {
  readonly name: string;
  private readonly clock: Clock;
  private readonly rateLimiter: RateLimiter;
  private readonly metrics: WorkQueueMetrics | undefined;

  private readonly queue: FairReadyList;
  /**
   * Low-priority ready keys. An entry whose key was raised (pushed to `queue`) or handed out
   * since is stale and skipped: removing it from the middle of the list would cost a scan.
   */
  private readonly background: FairReadyList;
  /** Keys that need processing: waiting in `queue`, or re-added while being processed. */
  private readonly dirty = new Set<string>();
  /** The dirty keys at low priority (queued in `background`, or processing and re-added low). */
  private readonly low = new Set<string>();
  /** Live entries in `background`: the low keys not being processed. */
  private lowQueued = 0;
  /** Keys handed to a worker and not yet `done`, with the time they were handed out. */
  private readonly processing = new Map<string, number>();
  /** When each queued key was added, for the queue-duration histogram. */
  private readonly addedAt = new Map<string, number>();
  /** Keys scheduled for later, with the time they become ready. */
  private readonly waiting = new Map<string, number>();
  /** The same keys by due time; an entry whose time is no longer the key's in `waiting` is stale. */
  private readonly waitingOrder = new DueHeap();
  private waitingTimer: { handle: TimerHandle; at: number } | undefined;

  private readonly getters: Array<(key: string | undefined) => void> = [];
  private readonly drainWaiters: Array<() => void> = [];
  private shuttingDown = false;

  constructor(options: WorkQueueOptions) {
    this.name = options.name;
    this.clock = options.clock ?? systemClock;
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter(this.clock);
    const shardOf = options.shardOf ?? (() => '');
    const { flowOf } = options;
    const newShard = flowOf === undefined ? undefined : () => new FairReadyList(flowOf);
    this.queue = new FairReadyList(shardOf, options.shardTurnSizeOf, newShard);
    this.background = new FairReadyList(shardOf, options.shardTurnSizeOf, newShard);
    this.metrics = options.registry
      ? workQueueMetrics(options.registry, {
          name: this.name,
          unfinishedWorkSeconds: () => this.unfinishedWorkSeconds(),
          longestRunningProcessorSeconds: () => this.longestRunningProcessorSeconds(),
        })
      : undefined;
  }

  /** Marks `key` as needing processing. Ignored once shutting down. */
  add(key: string, priority: Priority = 'normal'): void {
    if (this.shuttingDown) return;
    if (this.dirty.has(key)) {
      if (priority === 'normal' && this.low.delete(key)) this.raise(key);
      return;
    }
    this.metrics?.adds.inc({ name: this.name });
    this.dirty.add(key);
    if (priority === 'low') this.low.add(key);
    if (this.processing.has(key)) return;
    this.enqueue(key);
  }

  /** Adds `key` after `delayMs`; if it is already scheduled, the earlier time wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (!(delayMs > 0)) {
      this.add(key);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const scheduled = this.waiting.get(key);
    if (scheduled !== undefined && scheduled <= readyAt) return;
    this.waiting.set(key, readyAt);
    this.waitingOrder.push({ at: readyAt, key });
    this.scheduleWaitingTimer();
  }

  /** Requeues `key` after its rate-limited delay (a failure). */
  addRateLimited(key: string): void {
    if (this.shuttingDown) return;
    this.metrics?.retries.inc({ name: this.name });
    this.addAfter(key, this.rateLimiter.when(key));
  }

  /** Clears `key`'s backoff (after a success or an explicit requeue-after). */
  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.rateLimiter.numRequeues(key);
  }

  /**
   * The next key to process, waiting until one is available; `undefined` once shut down.
   * The caller owns the key until it calls `done(key)`.
   */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    const key = this.take();
    if (key !== undefined) return Promise.resolve(key);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Ends processing of `key`; if it was re-added meanwhile, it is queued again now. */
  done(key: string): void {
    const startedAt = this.processing.get(key);
    if (startedAt === undefined) return;
    this.processing.delete(key);
    this.metrics?.workDuration.observe({ name: this.name }, (this.clock.now() - startedAt) / 1000);
    if (this.dirty.has(key) && !this.shuttingDown) this.enqueue(key);
    if (this.processing.size === 0) this.drainWaiters.splice(0).forEach((wake) => wake());
  }

  get length(): number {
    return this.queue.length + this.lowQueued;
  }

  get processingCount(): number {
    return this.processing.size;
  }

  isProcessing(key: string): boolean {
    return this.processing.has(key);
  }

  /** Keys scheduled for later (requeue-after or backoff), for diagnostics and tests. */
  get waitingCount(): number {
    return this.waiting.size;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /**
   * Stops handing out keys (queued ones are dropped: the next leader or start relists) and
   * resolves when the keys in flight are done, or after `drainTimeoutMs`. Resolves to true
   * when the drain completed.
   */
  shutdown(drainTimeoutMs = 0): Promise<boolean> {
    if (!this.shuttingDown) {
      this.shuttingDown = true;
      if (this.waitingTimer) this.clock.clearTimeout(this.waitingTimer.handle);
      this.waitingTimer = undefined;
      this.waiting.clear();
      this.waitingOrder.clear();
      this.queue.clear();
      this.background.clear();
      this.dirty.clear();
      this.low.clear();
      this.lowQueued = 0;
      this.addedAt.clear();
      this.metrics?.depth.set({ name: this.name }, 0);
      this.getters.splice(0).forEach((resolve) => resolve(undefined));
    }
    if (this.processing.size === 0) {
      this.metrics?.unregister();
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const timer = this.clock.setTimeout(() => resolve(false), drainTimeoutMs);
      this.drainWaiters.push(() => {
        this.clock.clearTimeout(timer);
        this.metrics?.unregister();
        resolve(true);
      });
    });
  }

  private enqueue(key: string): void {
    const getter = this.getters.shift();
    if (getter) {
      this.dirty.delete(key);
      this.low.delete(key);
      this.processing.set(key, this.clock.now());
      this.metrics?.queueDuration.observe({ name: this.name }, 0);
      getter(key);
      return;
    }
    if (this.low.has(key)) {
      this.background.push(key);
      this.lowQueued += 1;
    } else {
      this.queue.push(key);
    }
    this.addedAt.set(key, this.clock.now());
    this.metrics?.depth.set({ name: this.name }, this.length);
  }

  /** A low key added normally: queued with the normal keys now (or when its pass is done). */
  private raise(key: string): void {
    if (this.processing.has(key)) return;
    this.lowQueued -= 1;
    this.queue.push(key);
  }

  private take(): string | undefined {
    const key = this.queue.shift() ?? this.takeLow();
    if (key === undefined) return undefined;
    this.dirty.delete(key);
    const now = this.clock.now();
    this.processing.set(key, now);
    const added = this.addedAt.get(key);
    this.addedAt.delete(key);
    if (added !== undefined) this.metrics?.queueDuration.observe({ name: this.name }, (now - added) / 1000);
    this.metrics?.depth.set({ name: this.name }, this.length);
    return key;
  }

  /** The next live low-priority key, dropping stale entries on the way. */
  private takeLow(): string | undefined {
    for (let key = this.background.shift(); key !== undefined; key = this.background.shift()) {
      if (!this.low.has(key) || this.processing.has(key)) continue;
      this.low.delete(key);
      this.lowQueued -= 1;
      return key;
    }
    return undefined;
  }

  private scheduleWaitingTimer(): void {
    const earliest = this.earliestWaiting();
    if (earliest === undefined) return;
    if (this.waitingTimer && this.waitingTimer.at <= earliest) return;
    if (this.waitingTimer) this.clock.clearTimeout(this.waitingTimer.handle);
    const handle = this.clock.setTimeout(() => this.releaseReady(), earliest - this.clock.now());
    this.waitingTimer = { handle, at: earliest };
  }

  /** The earliest due time of a waiting key, dropping the stale entries on top of the heap. */
  private earliestWaiting(): number | undefined {
    for (let top = this.waitingOrder.peek(); top !== undefined; top = this.waitingOrder.peek()) {
      if (this.waiting.get(top.key) === top.at) return top.at;
      this.waitingOrder.pop();
    }
    return undefined;
  }

  private releaseReady(): void {
    this.waitingTimer = undefined;
    const now = this.clock.now();
    for (let at = this.earliestWaiting(); at !== undefined && at <= now; at = this.earliestWaiting()) {
      const entry = this.waitingOrder.pop();
      if (entry === undefined) break;
      this.waiting.delete(entry.key);
      this.add(entry.key);
    }
    this.scheduleWaitingTimer();
  }

  private unfinishedWorkSeconds(): number {
    const now = this.clock.now();
    let total = 0;
    for (const startedAt of this.processing.values()) total += now - startedAt;
    return total / 1000;
  }

  private longestRunningProcessorSeconds(): number {
    const now = this.clock.now();
    let oldest = now;
    for (const startedAt of this.processing.values()) oldest = Math.min(oldest, startedAt);
    return (now - oldest) / 1000;
  }
}
