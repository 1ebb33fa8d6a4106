// A controller: N workers pull keys from a work queue and call `reconcile(key, signal)`.
// What the pass returns (one ReconcileResult, see ../reconcile/result.ts) decides the key's
// next visit, as in controller-runtime; a pass that throws is a bug, counted and logged as an
// error and retried with the key's backoff.
//
// Keys are `namespace/name` (a cluster-scoped object's is its name), and the work queue serves
// them namespace by namespace within each shard, as the API server's fairness treats flows:
// a tenant who creates a thousand objects at once does not put another tenant's one new
// object behind them (docs/security.md, "Sharing the operator's workers").
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { systemClock, type Clock } from '../clock.js';
import { splitObjectKey } from '../kube/objects.js';
import type { RateLimiter } from '../workqueue/rate-limiter.js';
import { WorkQueue, type Priority } from '../workqueue/queue.js';
import type { ReconcileResult } from '../reconcile/result.js';
import { controllerMetrics, type ControllerMetrics, type ReconcileOutcome } from './metrics.js';

export type Reconcile = (key: string, signal: AbortSignal) => Promise<ReconcileResult>;

export interface ControllerOptions {
  /** The `controller` label of the metrics and the work queue's `name`. */
  name: string;
  reconcile: Reconcile;
  /** Workers, i.e. the most keys reconciled at once (default 1). */
  maxConcurrentReconciles?: number;
  registry?: Registry;
  logger?: Logger;
  clock?: Clock;
  /** A fresh limiter per start (default: controller-runtime's). */
  rateLimiter?: () => RateLimiter;
  /** Serve ready keys fairly across these shards (WorkQueueOptions.shardOf); default one FIFO. */
  shardOf?: (key: string) => string;
  /** Keys a shard hands out in a row at its turn (WorkQueueOptions.shardTurnSizeOf); default one. */
  shardTurnSizeOf?: (key: string) => number;
}

export interface StopOptions {
  /** How long in-flight reconciles may take to finish (default 30 s). */
  drainTimeoutMs?: number;
  /** Abort in-flight reconciles' signals at once (leadership lost: stop writing now). */
  abortInFlight?: boolean;
}

export class Controller {
  readonly name: string;
  private readonly reconcile: Reconcile;
  private readonly workers: number;
  private readonly registry: Registry | undefined;
  private readonly logger: Logger | undefined;
  private readonly clock: Clock;
  private readonly rateLimiter: (() => RateLimiter) | undefined;
  private readonly shardOf: ((key: string) => string) | undefined;
  private readonly shardTurnSizeOf: ((key: string) => number) | undefined;
  private readonly metrics: ControllerMetrics | undefined;

  private queue: WorkQueue | undefined;
  private inFlight: AbortController | undefined;
  private workerLoops: Array<Promise<void>> = [];

  constructor(options: ControllerOptions) {
    const workers = options.maxConcurrentReconciles ?? 1;
    if (!Number.isInteger(workers) || workers < 1) {
      throw new Error(`maxConcurrentReconciles must be an integer >= 1, got ${workers}`);
    }
    this.name = options.name;
    this.reconcile = options.reconcile;
    this.workers = workers;
    this.registry = options.registry;
    this.logger = options.logger;
    this.clock = options.clock ?? systemClock;
    this.rateLimiter = options.rateLimiter;
    this.shardOf = options.shardOf;
    this.shardTurnSizeOf = options.shardTurnSizeOf;
    this.metrics = options.registry ? controllerMetrics(options.registry, this.name) : undefined;
    this.metrics?.maxConcurrentReconciles.set({ controller: this.name }, workers);
    this.metrics?.activeWorkers.set({ controller: this.name }, 0);
  }

  get running(): boolean {
    return this.queue !== undefined && !this.queue.isShuttingDown;
  }

  /** The current queue, for diagnostics and tests; undefined while stopped. */
  get workQueue(): WorkQueue | undefined {
    return this.queue;
  }

  /** Asks for `key` to be reconciled; ignored while the controller is stopped. */
  enqueue(key: string, priority: Priority = 'normal'): void {
    this.queue?.add(key, priority);
  }

  enqueueAfter(key: string, delayMs: number): void {
    this.queue?.addAfter(key, delayMs);
  }

  /** Starts the workers with a fresh queue (a stopped queue cannot be reused). */
  start(): void {
    if (this.running) return;
    this.queue = new WorkQueue({
      name: this.name,
      clock: this.clock,
      registry: this.registry,
      ...(this.rateLimiter ? { rateLimiter: this.rateLimiter() } : {}),
      ...(this.shardOf ? { shardOf: this.shardOf } : {}),
      ...(this.shardTurnSizeOf ? { shardTurnSizeOf: this.shardTurnSizeOf } : {}),
      // A key's flow is its namespace ('' for a cluster-scoped object's).
      flowOf: (key) => splitObjectKey(key).namespace ?? '',
    });
    this.inFlight = new AbortController();
    const queue = this.queue;
    const signal = this.inFlight.signal;
    this.workerLoops = Array.from({ length: this.workers }, () => this.work(queue, signal));
    this.logger?.info({ controller: this.name, workers: this.workers }, 'controller started');
  }

  /** Stops taking keys and waits for in-flight reconciles; resolves true when they all finished. */
  async stop(options: StopOptions = {}): Promise<boolean> {
    const queue = this.queue;
    const inFlight = this.inFlight;
    if (!queue || !inFlight) return true;
    if (options.abortInFlight) inFlight.abort();
    const drained = await queue.shutdown(options.drainTimeoutMs ?? 30_000);
    // Whatever still runs after the drain deadline is told to stop.
    inFlight.abort();
    if (drained) await Promise.all(this.workerLoops);
    this.logger?.info({ controller: this.name, drained }, 'controller stopped');
    return drained;
  }

  private async work(queue: WorkQueue, signal: AbortSignal): Promise<void> {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      this.metrics?.activeWorkers.inc({ controller: this.name });
      try {
        await this.process(queue, key, signal);
      } finally {
        this.metrics?.activeWorkers.dec({ controller: this.name });
        queue.done(key);
      }
    }
  }

  private async process(queue: WorkQueue, key: string, signal: AbortSignal): Promise<void> {
    const started = this.clock.now();
    let outcome: ReconcileOutcome;
    let result: ReconcileResult;
    try {
      result = await this.reconcile(key, signal);
    } catch (error) {
      // A bug, not a failure class: count and log it like controller-runtime does a panic.
      result = {
        kind: 'backoff',
        failure: { message: error instanceof Error ? error.message : String(error) },
      };
    }
    switch (result.kind) {
      case 'requeueAfter':
        // A non-positive delay asks for nothing: the key waits for its next event.
        queue.forget(key);
        if (result.ms > 0) queue.addAfter(key, result.ms);
        outcome = result.ms > 0 ? 'requeue_after' : 'success';
        break;
      case 'requeueNow':
        queue.forget(key);
        queue.add(key);
        outcome = 'requeue';
        break;
      case 'backoff':
        queue.addRateLimited(key);
        outcome = result.failure === undefined ? 'requeue' : 'error';
        if (result.failure !== undefined) {
          this.metrics?.reconcileErrors.inc({ controller: this.name });
          if (result.failure.logged !== true)
            this.logger?.error(
              { controller: this.name, key, requeues: queue.numRequeues(key), error: result.failure.message },
              'reconcile failed',
            );
        }
        break;
      case 'awaitChange':
        queue.forget(key);
        outcome = 'success';
        break;
    }
    this.metrics?.reconcileTotal.inc({ controller: this.name, result: outcome });
    this.metrics?.reconcileTime.observe({ controller: this.name }, (this.clock.now() - started) / 1000);
  }
}
