// A leader whose process was frozen (a long GC pause, SIGSTOP, a suspended VM) past its lease
// wakes up believing it leads. Its first timers and the answers that arrived meanwhile must
// not write: another replica may lead by now. It judges its lease by its own clock and stops
// its work before anything else of it runs, without waiting for the API server to tell it.
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock, TimerHandle } from '../../src/runtime/clock.js';
import { LeaderElector } from '../../src/runtime/leaderelection/leader-elector.js';
import type { LeaseStore, StoredLease } from '../../src/runtime/leaderelection/lease-store.js';
import { FakeClock, flush } from './support/fake-clock.js';
import { FakeLease } from './support/fake-lease-store.js';

/**
 * A clock that can freeze: `freeze(ms)` moves its time on without running any timer, as a
 * stopped process sees it; the timers that fell due meanwhile then run, all late, in order.
 */
class FreezableClock implements Clock {
  private offset = 0;
  constructor(private readonly inner: FakeClock) {}
  now(): number {
    return this.inner.now() + this.offset;
  }
  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    return this.inner.setTimeout(callback, delayMs);
  }
  clearTimeout(handle: TimerHandle): void {
    this.inner.clearTimeout(handle);
  }
  /** Time moves on by `ms` and nothing runs: the instant a frozen process runs again. */
  jump(ms: number): void {
    this.offset += ms;
  }
  /** Frozen for `ms`: time moves on, no timer runs. Then they run, late. */
  async freeze(ms: number): Promise<void> {
    this.offset += ms;
    // Every timer due within `ms` is now overdue: the inner clock runs them in due order.
    await this.inner.advance(ms);
    this.offset -= ms;
  }
}

const stops: AbortController[] = [];
afterEach(() => stops.splice(0).forEach((c) => c.abort()));

/** The lease store of the frozen leader: once `hang` is set, reads never answer (the API server is slow to tell). */
function hangingStore(lease: FakeLease): { store: LeaseStore; calls: string[]; hang: () => void } {
  const inner = lease.storeFor();
  const calls: string[] = [];
  let hanging = false;
  const pending = new Promise<never>(() => undefined);
  const wrap =
    <A extends unknown[]>(name: string, fn: (...args: A) => Promise<StoredLease | undefined>) =>
    (...args: A): Promise<StoredLease | undefined> => {
      calls.push(name);
      return hanging ? pending : fn(...args);
    };
  return {
    store: {
      description: 'hanging lease',
      get: wrap('get', (signal?: AbortSignal) => inner.get(signal)),
      create: wrap('create', (record, signal?: AbortSignal) => inner.create(record, signal)) as LeaseStore['create'],
      update: wrap('update', (record, version: string, signal?: AbortSignal) =>
        inner.update(record, version, signal),
      ) as LeaseStore['update'],
    },
    calls,
    hang: () => {
      hanging = true;
    },
  };
}

describe('LeaderElector: a leader frozen past its lease', () => {
  it('stops its work as it wakes, before its own timers run and before asking the API server', async () => {
    const fake = new FakeClock();
    const clock = new FreezableClock(fake);
    const lease = new FakeLease();
    const { store, calls, hang } = hangingStore(lease);
    let work: AbortSignal | undefined;
    const seenByWorkTimer: boolean[] = [];
    const elector = new LeaderElector({
      store,
      identity: 'a',
      name: 'lock',
      clock,
      random: () => 0,
      onStartedLeading: (signal) => {
        work = signal;
        // The work's own timer (a requeue, a poll): what it would write when it fires.
        const tick = (): void => {
          seenByWorkTimer.push(signal.aborted);
          if (!signal.aborted) clock.setTimeout(tick, 500);
        };
        clock.setTimeout(tick, 500);
      },
      onStoppedLeading: () => undefined,
    });
    const stop = new AbortController();
    stops.push(stop);
    void elector.run(stop.signal);
    await flush();
    expect(elector.isLeader).toBe(true);
    await fake.advance(3_000);
    expect(seenByWorkTimer.every((aborted) => !aborted)).toBe(true);

    // Frozen for 20 s (past the 15 s lease); meanwhile another replica takes the lease, and
    // the API server is slow to say so.
    hang();
    const current = lease.current;
    if (!current) throw new Error('no lease');
    await lease.storeFor().update({ ...current.record, holderIdentity: 'b' }, current.resourceVersion);
    const callsBefore = calls.length;
    seenByWorkTimer.length = 0;
    await clock.freeze(20_000);

    expect(work?.aborted).toBe(true);
    expect(elector.isLeader).toBe(false);
    // Every timer of the work that ran after the freeze found the work already stopped...
    expect(seenByWorkTimer.length).toBeGreaterThan(0);
    expect(seenByWorkTimer.every((aborted) => aborted)).toBe(true);
    // ... and it did not wait for the API server (which has not answered) to step down.
    expect(calls.length - callsBefore).toBeLessThanOrEqual(1);
  });
});

describe('LeaderElector.holdsLease: the lease by its own clock, at the moment it is asked', () => {
  it('is true while renewals succeed and false the instant the renew deadline has passed, before any timer ran', async () => {
    const fake = new FakeClock();
    const clock = new FreezableClock(fake);
    const lease = new FakeLease();
    const elector = new LeaderElector({
      store: lease.storeFor(),
      identity: 'a',
      name: 'lock',
      clock,
      random: () => 0,
      onStartedLeading: () => undefined,
      onStoppedLeading: () => undefined,
    });
    expect(elector.holdsLease).toBe(false);
    const stop = new AbortController();
    stops.push(stop);
    void elector.run(stop.signal);
    await flush();
    expect(elector.holdsLease).toBe(true);
    await fake.advance(5_000);
    expect(elector.holdsLease).toBe(true);
    // The process runs again after a freeze: code already running asks before any timer.
    clock.jump(12_000);
    expect(elector.isLeader).toBe(true); // nothing has told the elector yet
    expect(elector.holdsLease).toBe(false);
  });
});
