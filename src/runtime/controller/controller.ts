// A controller: N workers pull keys from a work queue and call `reconcile(key, signal)`.
// What the reconcile returns decides the key's next visit, as in controller-runtime:
//   throws or returns an Error → requeue with the key's rate-limited backoff;
//   { requeueAfterMs }        → forget the backoff, look again after that delay;
//   { requeue: true }         → requeue with backoff without counting an error;
//   { requeue: true, failed: true } → the same, counted as an error (result="error") that the
//                               reconciler has already handled and logged: not logged again;
//   { requeueNow: true }      → forget the backoff and look again at once (a 409: re-read, retry);
//   anything else             → success: forget the backoff; the next event brings it back.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { systemClock, type Clock } from '../clock.js';
import type { RateLimiter } from '../workqueue/rate-limiter.js';
import { WorkQueue } from '../workqueue/queue.js';
import { controllerMetrics, type ControllerMetrics, type ReconcileOutcome } from './metrics.js';

export interface ReconcileResult {
  /** Look at the key again after this many milliseconds (a poll; resets the backoff). */
  requeueAfterMs?: number;
  /** Look again soon, with backoff, without counting an error. */
  requeue?: boolean;
  /**
   * With `requeue`: the backoff follows a failure (a 5xx, a refused key) that the reconciler
   * handled as a value. It counts in controller_runtime_reconcile_errors_total, as a returned
   * error does in controller-runtime, so that dashboards and alerts see it.
   */
  failed?: boolean;
  /** Look again at once, without backoff (an optimistic-concurrency conflict: re-read and retry). */
  requeueNow?: boolean;
}

export type Reconcile = (key: string, signal: AbortSignal) => Promise<ReconcileResult | Error | void>;

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
  enqueue(key: string): void {
    this.queue?.add(key);
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
    try {
      const result = await this.reconcile(key, signal);
      if (result instanceof Error) throw result;
      if (result?.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
        queue.forget(key);
        queue.addAfter(key, result.requeueAfterMs);
        outcome = 'requeue_after';
      } else if (result?.requeueNow) {
        queue.forget(key);
        queue.add(key);
        outcome = 'requeue';
      } else if (result?.requeue) {
        queue.addRateLimited(key);
        outcome = result.failed ? 'error' : 'requeue';
        if (result.failed) this.metrics?.reconcileErrors.inc({ controller: this.name });
      } else {
        queue.forget(key);
        outcome = 'success';
      }
    } catch (error) {
      outcome = 'error';
      this.metrics?.reconcileErrors.inc({ controller: this.name });
      queue.addRateLimited(key);
      this.logger?.error(
        {
          controller: this.name,
          key,
          requeues: queue.numRequeues(key),
          error: error instanceof Error ? error.message : String(error),
        },
        'reconcile failed',
      );
    }
    this.metrics?.reconcileTotal.inc({ controller: this.name, result: outcome });
    this.metrics?.reconcileTime.observe({ controller: this.name }, (this.clock.now() - started) / 1000);
  }
}
