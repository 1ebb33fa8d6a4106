// Leader election on a Lease with client-go's semantics, so that only one replica reconciles:
// - a candidate retries every retryPeriod (jittered) until the lease is free, expired, or its own;
// - expiry is judged by the local clock from when this candidate last saw the record change
//   (not by comparing the holder's renewTime with our clock, which would trust clock sync);
// - the leader renews every retryPeriod; if it cannot renew within renewDeadline it stops
//   leading (its work is aborted) before the lease can expire for the others;
// - it judges that deadline by its own clock, on a watchdog timer every 100 ms as well as when
//   it wakes to renew: a process frozen past its lease (a long GC pause, SIGSTOP, a suspended
//   VM) aborts its work as soon as it runs again, before the work's own later timers and the
//   answers that arrived meanwhile, and without first asking the API server (whose answer
//   would come after them). What can still run first: a timer of the work due within 100 ms
//   of the freeze's start, and, when the process froze while running code rather than
//   waiting, that code and the answers already arrived: for those, `holdsLease` answers by
//   the clock at the moment it is asked, and a client asks it right before sending
//   (docs/chaos.md, "Two replicas");
// - on shutdown the leader stops its work first, then releases the lease (empty holder,
//   1 s duration) so that the next candidate takes over at once instead of after 15 s.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { RandomSource } from '../backoff.js';
import { sleep, systemClock, type Clock } from '../clock.js';
import { gaugeIn } from '../metrics/registry-metrics.js';
import { RequestDeadline } from '../request-deadline.js';
import type { LeaderRecord, LeaseStore, StoredLease } from './lease-store.js';

export interface LeaderElectionTimings {
  /** How long a non-renewed lease stays valid for the others (default 15 s). */
  leaseDurationMs?: number;
  /** How long the leader keeps retrying a failed renewal before it gives up (default 10 s). */
  renewDeadlineMs?: number;
  /** Time between attempts (default 2 s). */
  retryPeriodMs?: number;
}

export interface LeaderElectorOptions extends LeaderElectionTimings {
  store: LeaseStore;
  /** Unique per replica, e.g. the pod name plus a random suffix. */
  identity: string;
  /** The `name` label of leader_election_master_status (usually the lease name). */
  name: string;
  onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Awaited before the lease is released, so the work has stopped when the next leader starts. */
  onStoppedLeading: () => void | Promise<void>;
  /** Release the lease when `run`'s signal aborts (default true). */
  releaseOnCancel?: boolean;
  clock?: Clock;
  random?: RandomSource;
  logger?: Logger;
  registry?: Registry;
}

const JITTER_FACTOR = 1.2;
/** How often a leader checks its renew deadline against its own clock. */
const WATCHDOG_MS = 100;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sameRecord(a: LeaderRecord, b: LeaderRecord): boolean {
  return (
    a.holderIdentity === b.holderIdentity &&
    a.leaseDurationSeconds === b.leaseDurationSeconds &&
    a.acquireTime === b.acquireTime &&
    a.renewTime === b.renewTime &&
    a.leaseTransitions === b.leaseTransitions
  );
}

export class LeaderElector {
  private readonly store: LeaseStore;
  readonly identity: string;
  private readonly name: string;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly onStartedLeading: LeaderElectorOptions['onStartedLeading'];
  private readonly onStoppedLeading: LeaderElectorOptions['onStoppedLeading'];
  private readonly releaseOnCancel: boolean;
  private readonly clock: Clock;
  private readonly random: RandomSource;
  private readonly logger: Logger | undefined;
  private readonly status: { set(labels: { name: string }, value: number): void } | undefined;

  private observed: StoredLease | undefined;
  private observedAt = 0;
  private leading = false;
  /** When the last successful acquisition or renewal began (the renewTime it stamped), local clock. */
  private renewedAt = 0;
  /** While leading: the renew deadline of the current term's last renewal; 0 otherwise. */
  private leaseHeldUntil = 0;

  constructor(options: LeaderElectorOptions) {
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    if (!(this.leaseDurationMs > this.renewDeadlineMs)) {
      throw new Error(
        `leaseDurationMs (${this.leaseDurationMs}) must be greater than renewDeadlineMs (${this.renewDeadlineMs})`,
      );
    }
    if (!(this.renewDeadlineMs > JITTER_FACTOR * this.retryPeriodMs)) {
      throw new Error(
        `renewDeadlineMs (${this.renewDeadlineMs}) must be greater than ${JITTER_FACTOR} × retryPeriodMs (${this.retryPeriodMs})`,
      );
    }
    if (options.identity.trim() === '') throw new Error('identity must not be empty');
    this.store = options.store;
    this.identity = options.identity;
    this.name = options.name;
    this.onStartedLeading = options.onStartedLeading;
    this.onStoppedLeading = options.onStoppedLeading;
    this.releaseOnCancel = options.releaseOnCancel ?? true;
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.logger = options.logger;
    this.status = options.registry
      ? gaugeIn(
          options.registry,
          'leader_election_master_status',
          "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease.",
          ['name'],
        )
      : undefined;
    this.status?.set({ name: this.name }, 0);
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /**
   * Whether this replica holds the lease *by its own clock, now*: it leads and its renew
   * deadline has not passed. Unlike `isLeader` this needs no timer to have run, so code that
   * runs first after a freeze (the answers that arrived meanwhile) asks it right before a
   * write and gets the truth.
   */
  get holdsLease(): boolean {
    return this.clock.now() < this.leaseHeldUntil;
  }

  /** The holder last seen on the lease (for health and logs). */
  get observedLeader(): string | undefined {
    return this.observed?.record.holderIdentity || undefined;
  }

  /** Campaigns, leads, and campaigns again after losing the lease, until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const acquired = await this.acquire(signal);
      if (!acquired) break;
      await this.lead(signal);
    }
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.logger?.info(
      { lease: this.store.description, identity: this.identity },
      'campaigning for leadership',
    );
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew(signal)) return true;
      await sleep(this.clock, this.retryPeriodMs * (1 + (JITTER_FACTOR - 1) * this.random()), signal);
    }
    return false;
  }

  private async lead(signal: AbortSignal): Promise<void> {
    this.leading = true;
    this.status?.set({ name: this.name }, 1);
    this.logger?.info({ lease: this.store.description, identity: this.identity }, 'became leader');
    const work = new AbortController();
    // The renew deadline by this replica's own clock, counted from when its last successful
    // renewal *began* (the renewTime it stamped): the watchdog stops the work the moment the
    // deadline has passed, whatever else is due.
    let lastRenew = this.renewedAt;
    this.leaseHeldUntil = lastRenew + this.renewDeadlineMs;
    const expired = (): boolean => this.clock.now() - lastRenew >= this.renewDeadlineMs;
    let watchdog: ReturnType<Clock['setTimeout']> | undefined;
    let deadlinePassed: () => void = () => undefined;
    const lost = new Promise<void>((resolve) => {
      deadlinePassed = resolve;
    });
    const watch = (): void => {
      if (expired()) {
        watchdog = undefined;
        this.leaseHeldUntil = 0;
        this.logger?.warn(
          {
            lease: this.store.description,
            identity: this.identity,
            sinceRenewalMs: this.clock.now() - lastRenew,
          },
          'renew deadline passed by the local clock (renewals failing, or this process was paused): stopping work',
        );
        work.abort();
        deadlinePassed();
        return;
      }
      watchdog = this.clock.setTimeout(watch, WATCHDOG_MS);
    };
    watchdog = this.clock.setTimeout(watch, WATCHDOG_MS);
    try {
      await this.onStartedLeading(work.signal);
    } catch (error) {
      this.logger?.error({ error: describe(error) }, 'onStartedLeading failed');
    }
    while (!signal.aborted && !work.signal.aborted) {
      await Promise.race([sleep(this.clock, this.retryPeriodMs, signal), lost]);
      if (signal.aborted || work.signal.aborted) break;
      // Woken late (frozen): step down before any I/O; the API server's answer would come
      // after whatever else of this process is due.
      if (expired()) break;
      if (await this.tryAcquireOrRenew(signal)) {
        // A renewal that completed after the watchdog fired does not undo the step-down.
        if (work.signal.aborted) break;
        lastRenew = this.renewedAt;
        this.leaseHeldUntil = lastRenew + this.renewDeadlineMs;
      } else if (expired() || this.heldByAnother()) {
        break;
      }
    }
    if (watchdog !== undefined) this.clock.clearTimeout(watchdog);
    this.leaseHeldUntil = 0;
    work.abort();
    this.leading = false;
    this.status?.set({ name: this.name }, 0);
    try {
      await this.onStoppedLeading();
    } catch (error) {
      this.logger?.error({ error: describe(error) }, 'onStoppedLeading failed');
    }
    if (signal.aborted) {
      if (this.releaseOnCancel) await this.release();
      this.logger?.info(
        { lease: this.store.description, identity: this.identity },
        'stopped leading (shutdown)',
      );
    } else {
      this.logger?.warn({ lease: this.store.description, identity: this.identity }, 'leadership lost');
    }
  }

  private heldByAnother(): boolean {
    const holder = this.observed?.record.holderIdentity;
    return holder !== undefined && holder !== '' && holder !== this.identity;
  }

  /** One attempt: true when this candidate holds the lease afterwards. */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    // Every 2 s against the elector's own long-lived signal: released when the attempt ends.
    const deadline = new RequestDeadline(signal, this.renewDeadlineMs);
    const callSignal = deadline.signal;
    const now = this.clock.now();
    const wanted: LeaderRecord = {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    };
    try {
      const current = await this.store.get(callSignal);
      if (!current) {
        this.observe(await this.store.create(wanted, callSignal));
        this.renewedAt = now;
        return true;
      }
      if (!this.observed || !sameRecord(this.observed.record, current.record)) this.observe(current);
      else this.observed = current;
      const record = current.record;
      const expiresAt = this.observedAt + record.leaseDurationSeconds * 1000;
      if (record.holderIdentity !== '' && record.holderIdentity !== this.identity && expiresAt > now) {
        return false;
      }
      if (record.holderIdentity === this.identity) {
        wanted.acquireTime = record.acquireTime ?? now;
        wanted.leaseTransitions = record.leaseTransitions;
      } else {
        wanted.leaseTransitions = record.leaseTransitions + 1;
      }
      this.observe(await this.store.update(wanted, current.resourceVersion, callSignal));
      this.renewedAt = now;
      return true;
    } catch (error) {
      if (!signal.aborted)
        this.logger?.warn({ lease: this.store.description, error: describe(error) }, 'lease update failed');
      return false;
    } finally {
      deadline.release();
    }
  }

  private observe(lease: StoredLease): void {
    this.observed = lease;
    this.observedAt = this.clock.now();
  }

  /** Hands the lease back so the next candidate need not wait for it to expire. */
  private async release(): Promise<void> {
    const observed = this.observed;
    if (!observed || observed.record.holderIdentity !== this.identity) return;
    const now = this.clock.now();
    try {
      this.observe(
        await this.store.update(
          {
            holderIdentity: '',
            leaseDurationSeconds: 1,
            acquireTime: now,
            renewTime: now,
            leaseTransitions: observed.record.leaseTransitions,
          },
          observed.resourceVersion,
          AbortSignal.timeout(this.renewDeadlineMs),
        ),
      );
      this.logger?.info({ lease: this.store.description }, 'lease released');
    } catch (error) {
      this.logger?.warn(
        { lease: this.store.description, error: describe(error) },
        'lease release failed; it will expire',
      );
    }
  }
}
