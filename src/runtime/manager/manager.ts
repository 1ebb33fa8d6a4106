// The manager ties caches, controllers and leader election together:
// - informers run on every replica, so that a standby's caches are warm;
// - controllers start only on the leader (or at once without leader election), each after
//   the caches it watches have synced (one failing cache holds back only its own
//   controllers); at start each controller is handed every cached key, since the events
//   that created them were delivered before it listened;
// - losing the lease stops the controllers at once (in-flight reconciles are aborted in the
//   same tick as the elector stops the work, before the leader runnables wind down: another
//   replica may already be leading); shutdown drains them, then releases the lease.
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { systemClock, type Clock, type TimerHandle } from '../clock.js';
import type { Controller } from '../controller/controller.js';
import type { KubeClient } from '../kube/client.js';
import { objectKey, type KubeObject } from '../kube/objects.js';
import { LeaderElector, type LeaderElectionTimings } from '../leaderelection/leader-elector.js';
import { KubeLeaseStore, type LeaseStore } from '../leaderelection/lease-store.js';
import type { ControllerHealth, HealthSnapshot, ManagerRole } from './health.js';
import type { Informer } from './informer.js';
import type { Priority } from '../workqueue/queue.js';

export interface LeaderElectionConfig extends LeaderElectionTimings {
  /** Where the Lease lives, and its name (also the metric's `name` label). */
  namespace: string;
  leaseName: string;
  identity: string;
  /** A custom store (tests); defaults to the Lease through `client`. */
  store?: LeaseStore;
}

export interface ManagerOptions {
  client?: KubeClient;
  registry?: Registry;
  logger?: Logger;
  clock?: Clock;
  leaderElection?: LeaderElectionConfig;
  /** How long shutdown waits for in-flight reconciles (default 30 s). */
  drainTimeoutMs?: number;
  /** Liveness fails when the event loop lags more than this (default 10 s). */
  maxEventLoopLagMs?: number;
}

/** Maps a changed object to the keys of the objects to reconcile (default: its own key). */
export interface Watch<T extends KubeObject = KubeObject> {
  informer: Informer<T>;
  keysFor?: (object: T) => string[];
  /**
   * Whether an update deserves a reconcile (default: every update), like controller-runtime's
   * predicates: a controller filters out its own status writes here.
   */
  onUpdate?: (old: T, current: T) => boolean;
  /**
   * Of the objects already in the cache when the controller starts, those that need a look
   * soon (not settled: new, edited, being deleted); they are queued at normal priority, the
   * rest low, behind any change (default: none, all low, as controller-runtime's priority queue).
   */
  urgentAtStart?: (object: T) => boolean;
  /**
   * Events of this watch ask for a look this long after the first of them, not at once: a
   * burst makes one look (a count over many objects written once, not once per object). A
   * key already due sooner keeps its time (WorkQueue.addAfter).
   */
  delayMs?: number;
}

/** A `Watch` for an informer of any object type (the manager stores them side by side). */
export function watchOf<T extends KubeObject>(
  informer: Informer<T>,
  keysFor?: (object: T) => string[],
  onUpdate?: (old: T, current: T) => boolean,
  urgentAtStart?: (object: T) => boolean,
): Watch<KubeObject> {
  return { informer, keysFor, onUpdate, urgentAtStart } as unknown as Watch<KubeObject>;
}

/**
 * Work that must run only on the leader, beside the controllers (controller-runtime's
 * leader-election runnables): started after the caches synced, stopped when leading ends.
 */
export interface LeaderRunnable {
  start(): void;
  stop(): Promise<void>;
}

interface Registration {
  controller: Controller;
  watches: Array<Watch<KubeObject>>;
  detach: Array<() => void>;
  /** Started in the current term of leading (its own caches had synced). */
  started: boolean;
}

const HEARTBEAT_MS = 1_000;

export class Manager {
  private readonly client: KubeClient | undefined;
  private readonly registry: Registry | undefined;
  private readonly logger: Logger | undefined;
  private readonly clock: Clock;
  private readonly drainTimeoutMs: number;
  private readonly maxLagMs: number;
  private readonly electionConfig: LeaderElectionConfig | undefined;

  private readonly informers: Array<Informer<KubeObject>> = [];
  private readonly registrations: Registration[] = [];
  private readonly leaderRunnables: LeaderRunnable[] = [];
  private elector: LeaderElector | undefined;
  private informerAbort: AbortController | undefined;
  private electionAbort: AbortController | undefined;
  private running: Promise<void> | undefined;
  private controllersRunning = false;
  /** The last stop of the controllers (resolved when nothing was ever stopped). */
  private controllersStopped: Promise<void> = Promise.resolve();
  private runnablesRunning = false;
  private stopping = false;
  private lagMs = 0;
  private heartbeat: TimerHandle | undefined;

  constructor(options: ManagerOptions = {}) {
    this.client = options.client;
    this.registry = options.registry;
    this.logger = options.logger;
    this.clock = options.clock ?? systemClock;
    this.drainTimeoutMs = options.drainTimeoutMs ?? 30_000;
    this.maxLagMs = options.maxEventLoopLagMs ?? 10_000;
    this.electionConfig = options.leaderElection;
  }

  /** Registers an informer; it runs from `start` on. */
  addInformer<T extends KubeObject>(informer: Informer<T>): Informer<T> {
    this.informers.push(informer as unknown as Informer<KubeObject>);
    return informer;
  }

  /** Registers a controller fed by the given watches; it runs only while leading. */
  addController(controller: Controller, watches: Array<Watch<KubeObject>>): void {
    for (const watch of watches) {
      if (!this.informers.includes(watch.informer)) this.addInformer(watch.informer);
    }
    this.registrations.push({ controller, watches, detach: [], started: false });
  }

  /** Registers work that runs only while this replica leads (or always, without election). */
  addLeaderRunnable(runnable: LeaderRunnable): void {
    this.leaderRunnables.push(runnable);
    if (this.runnablesRunning) runnable.start();
  }

  get isLeader(): boolean {
    return this.elector ? this.elector.isLeader : this.controllersRunning;
  }

  /**
   * Whether this replica may write now: always without leader election; with it, whether it
   * holds the lease by its own clock at this moment (`LeaderElector.holdsLease`). For a
   * client to ask right before it sends a write: after a freeze, code can run before any
   * timer has told the manager that the lease is gone.
   */
  holdsLease(): boolean {
    if (!this.electionConfig) return true;
    return this.elector?.holdsLease ?? false;
  }

  /** Starts everything; resolves when the manager has stopped (by `stop` or `signal`). */
  start(signal?: AbortSignal): Promise<void> {
    if (this.running) return this.running;
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    this.running = this.runAll();
    return this.running;
  }

  /** Drains controllers, releases the lease, stops the caches. */
  async stop(): Promise<void> {
    if (this.stopping || !this.running) {
      await this.running;
      return;
    }
    this.stopping = true;
    await this.stopControllers({ drainTimeoutMs: this.drainTimeoutMs });
    this.electionAbort?.abort();
    this.informerAbort?.abort();
    await this.running;
  }

  health(): HealthSnapshot {
    const informers = this.informers.flatMap((i) => i.health());
    const problems: string[] = [];
    for (const reflector of informers) {
      if (!reflector.synced) problems.push(`cache not synced: ${reflector.description}`);
      if (reflector.stuck)
        problems.push(
          `reflector stuck: ${reflector.description}${reflector.lastError ? ` (${reflector.lastError})` : ''}`,
        );
    }
    if (this.lagMs > this.maxLagMs) problems.push(`event loop lagging ${Math.round(this.lagMs)} ms`);
    const started = this.running !== undefined && !this.stopping;
    if (!started) problems.push('manager not running');
    const controllers: ControllerHealth[] = this.registrations.map(({ controller }) => ({
      name: controller.name,
      running: controller.running,
      queueDepth: controller.workQueue?.length ?? 0,
      processing: controller.workQueue?.processingCount ?? 0,
    }));
    const role: ManagerRole = !started
      ? 'stopped'
      : !this.elector
        ? 'single'
        : this.elector.isLeader
          ? 'leader'
          : 'standby';
    return {
      ready: started && informers.every((r) => r.synced),
      live: informers.every((r) => !r.stuck) && this.lagMs <= this.maxLagMs,
      role,
      ...(this.elector?.observedLeader ? { leader: this.elector.observedLeader } : {}),
      eventLoopLagMs: this.lagMs,
      informers,
      controllers,
      problems,
    };
  }

  private async runAll(): Promise<void> {
    this.informerAbort = new AbortController();
    const informerSignal = this.informerAbort.signal;
    // Every reflector listens on this one signal (while it watches, and while it waits to
    // retry): a dozen kinds in several namespaces are not a leak, so say how many to expect
    // rather than have Node warn past 10.
    const reflectors = this.informers.reduce((count, informer) => count + informer.health().length, 0);
    setMaxListeners(Math.max(10, reflectors * 2 + 1), informerSignal);
    this.startHeartbeat();
    const caches = Promise.all(this.informers.map((i) => i.run(informerSignal)));
    try {
      if (this.electionConfig) {
        this.electionAbort = new AbortController();
        this.elector = this.createElector(this.electionConfig, informerSignal);
        await this.elector.run(this.electionAbort.signal);
      } else {
        await this.startControllers(informerSignal);
      }
      await caches;
    } finally {
      if (this.heartbeat !== undefined) this.clock.clearTimeout(this.heartbeat);
      this.heartbeat = undefined;
    }
  }

  private createElector(config: LeaderElectionConfig, informerSignal: AbortSignal): LeaderElector {
    if (!config.store && !this.client)
      throw new Error('leader election needs a KubeClient (options.client) or a lease store');
    const store =
      config.store ?? new KubeLeaseStore(this.client as KubeClient, config.namespace, config.leaseName);
    return new LeaderElector({
      store,
      identity: config.identity,
      name: config.leaseName,
      leaseDurationMs: config.leaseDurationMs,
      renewDeadlineMs: config.renewDeadlineMs,
      retryPeriodMs: config.retryPeriodMs,
      clock: this.clock,
      logger: this.logger,
      registry: this.registry,
      onStartedLeading: (leading) => {
        const stopWhenLost = AbortSignal.any([leading, informerSignal]);
        // The moment leading ends, in-flight passes are aborted, in the same tick: before
        // any other timer or answer of this process can start a write.
        leading.addEventListener(
          'abort',
          () => void this.stopControllers({ drainTimeoutMs: this.drainTimeoutMs, abortInFlight: true }),
          { once: true },
        );
        void this.startControllers(stopWhenLost);
      },
      // Lost lease (not shutdown, which has drained them already): stop writing at once.
      onStoppedLeading: () =>
        this.stopControllers({ drainTimeoutMs: this.drainTimeoutMs, abortInFlight: true }),
    });
  }

  /**
   * Each controller starts as soon as the caches it watches have synced, so that one cache
   * that cannot sync (an API server failing that resource) holds back only the controllers
   * that need it; the leader runnables start once every cache has synced.
   */
  private async startControllers(signal: AbortSignal): Promise<void> {
    if (signal.aborted || this.stopping || this.controllersRunning) return;
    this.controllersRunning = true;
    const term = (): boolean => !signal.aborted && !this.stopping && this.controllersRunning;
    // One wait per cache, shared by every controller that watches it: one listener on
    // `signal` per cache, not one per (controller, cache) pair.
    const syncs = new Map<Informer<KubeObject>, Promise<boolean>>();
    const synced = (informer: Informer<KubeObject>): Promise<boolean> => {
      let waiting = syncs.get(informer);
      if (waiting === undefined) {
        waiting = informer.waitForSync(signal);
        syncs.set(informer, waiting);
      }
      return waiting;
    };
    const controllersStarted = Promise.all(
      this.registrations.map(async (registration) => {
        const informers = [...new Set(registration.watches.map((watch) => watch.informer))];
        const ready = await Promise.all(informers.map((informer) => synced(informer)));
        if (!term() || !ready.every(Boolean)) return false;
        this.startRegistration(registration);
        return true;
      }),
    );
    const everySync = await Promise.all(this.informers.map((informer) => synced(informer)));
    const started = await controllersStarted;
    if (!term() || !everySync.every(Boolean) || !started.every(Boolean)) return;
    this.runnablesRunning = true;
    for (const runnable of this.leaderRunnables) runnable.start();
    this.logger?.info(
      { controllers: this.registrations.map((r) => r.controller.name) },
      'controllers started',
    );
  }

  private startRegistration(registration: Registration): void {
    const { controller, watches } = registration;
    registration.started = true;
    controller.start();
    for (const watch of watches) {
      const keysFor = watch.keysFor ?? ((object: KubeObject) => [objectKey(object)]);
      const { delayMs } = watch;
      const enqueue = (object: KubeObject, priority: Priority = 'normal'): void =>
        keysFor(object).forEach((key) =>
          delayMs === undefined ? controller.enqueue(key, priority) : controller.enqueueAfter(key, delayMs),
        );
      const wanted = watch.onUpdate ?? (() => true);
      registration.detach.push(
        watch.informer.addHandler({
          onAdd: (object) => enqueue(object),
          onUpdate: (old, current) => {
            // A resync re-delivers an unchanged object: a look, not news.
            if (wanted(old, current)) enqueue(current, unchanged(old, current) ? 'low' : 'normal');
          },
          onDelete: (object) => enqueue(object),
        }),
      );
      // The objects already there when leading began: the settled ones (most, after a restart
      // or a hand-over) wait behind any change and any unsettled object (WorkQueue priorities).
      const urgent = watch.urgentAtStart ?? (() => false);
      for (const object of watch.informer.store.list()) enqueue(object, urgent(object) ? 'normal' : 'low');
    }
  }

  /**
   * Stops the controllers, then the leader runnables. With `abortInFlight` the controllers'
   * in-flight passes are aborted before this returns (synchronously), whatever the runnables
   * take to stop. A second call while a stop is under way waits for that stop.
   */
  private stopControllers(options: { drainTimeoutMs: number; abortInFlight?: boolean }): Promise<void> {
    if (!this.controllersRunning) return this.controllersStopped;
    this.controllersRunning = false;
    const started = this.registrations.filter((registration) => registration.started);
    for (const registration of started) {
      registration.started = false;
      registration.detach.splice(0).forEach((detach) => detach());
    }
    // Each stop runs synchronously up to its first await: the abort of its in-flight passes.
    const controllers = Promise.all(started.map((r) => r.controller.stop(options)));
    const runnables = this.runnablesRunning
      ? Promise.all(this.leaderRunnables.map((runnable) => runnable.stop()))
      : Promise.resolve([]);
    this.runnablesRunning = false;
    this.controllersStopped = Promise.all([controllers, runnables]).then(() => undefined);
    return this.controllersStopped;
  }

  private startHeartbeat(): void {
    let expected = this.clock.now() + HEARTBEAT_MS;
    const beat = (): void => {
      const now = this.clock.now();
      this.lagMs = Math.max(0, now - expected);
      expected = now + HEARTBEAT_MS;
      this.heartbeat = this.clock.setTimeout(beat, HEARTBEAT_MS);
    };
    this.heartbeat = this.clock.setTimeout(beat, HEARTBEAT_MS);
  }
}

/** The same version of an object delivered again (an informer's resync), not a change. */
function unchanged(old: KubeObject, current: KubeObject): boolean {
  return old === current || old.metadata.resourceVersion === current.metadata.resourceVersion;
}
