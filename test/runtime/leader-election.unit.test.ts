import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { LeaderElector } from '../../src/runtime/leaderelection/leader-elector.js';
import { formatMicroTime, parseMicroTime } from '../../src/runtime/leaderelection/micro-time.js';
import { FakeClock, flush } from './support/fake-clock.js';
import { FakeLease } from './support/fake-lease-store.js';

const stops: AbortController[] = [];
afterEach(() => stops.splice(0).forEach((c) => c.abort()));

function candidate(lease: FakeLease, clock: FakeClock, identity: string, registry?: Registry) {
  const log: string[] = [];
  let workSignal: AbortSignal | undefined;
  const elector = new LeaderElector({
    store: lease.storeFor(),
    identity,
    name: 'operator-lock',
    clock,
    random: () => 0,
    registry,
    onStartedLeading: (signal) => {
      workSignal = signal;
      log.push('started');
    },
    onStoppedLeading: () => {
      log.push(`stopped(work aborted: ${String(workSignal?.aborted)})`);
    },
  });
  const stop = new AbortController();
  stops.push(stop);
  const done = elector.run(stop.signal);
  return { elector, log, stop, done, workSignal: () => workSignal };
}

describe('MicroTime', () => {
  it('formats with exactly 6 fractional digits and parses any precision', () => {
    const ms = Date.parse('2025-03-04T05:06:07.089Z');
    expect(formatMicroTime(ms)).toBe('2025-03-04T05:06:07.089000Z');
    expect(parseMicroTime('2025-03-04T05:06:07.089123Z')).toBe(ms);
    expect(parseMicroTime('2025-03-04T05:06:07Z')).toBe(ms - 89);
    expect(parseMicroTime('2025-03-04T06:06:07.089+01:00')).toBe(ms);
    expect(parseMicroTime('yesterday')).toBeUndefined();
  });
});

describe('LeaderElector', () => {
  it('rejects timings that cannot work', () => {
    const lease = new FakeLease();
    const base = {
      store: lease.storeFor(),
      identity: 'a',
      name: 'l',
      onStartedLeading: () => undefined,
      onStoppedLeading: () => undefined,
    };
    expect(() => new LeaderElector({ ...base, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 })).toThrow(
      /leaseDurationMs/,
    );
    expect(() => new LeaderElector({ ...base, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 })).toThrow(
      /renewDeadlineMs/,
    );
    expect(() => new LeaderElector({ ...base, identity: ' ' })).toThrow(/identity/);
  });

  it('acquires a free lease, renews it every retry period, and publishes master status', async () => {
    const clock = new FakeClock();
    const lease = new FakeLease();
    const registry = new Registry();
    const a = candidate(lease, clock, 'a', registry);
    await flush();
    expect(a.elector.isLeader).toBe(true);
    expect(a.log).toEqual(['started']);
    expect(lease.current?.record).toMatchObject({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
    });
    const acquiredAt = lease.current?.record.acquireTime;
    await clock.advance(2_000);
    expect(lease.current?.record.renewTime).toBe(clock.now());
    expect(lease.current?.record.acquireTime).toBe(acquiredAt);
    expect(await registry.metrics()).toContain('leader_election_master_status{name="operator-lock"} 1');
  });

  it('a second candidate waits while the holder renews', async () => {
    const clock = new FakeClock();
    const lease = new FakeLease();
    const a = candidate(lease, clock, 'a');
    await flush();
    const b = candidate(lease, clock, 'b');
    await clock.advance(60_000);
    expect(a.elector.isLeader).toBe(true);
    expect(b.elector.isLeader).toBe(false);
    expect(b.elector.observedLeader).toBe('a');
  });

  it('takes over an expired lease, measured from when it last saw the record change', async () => {
    const clock = new FakeClock();
    const lease = new FakeLease();
    // A holder that died without releasing: its record says it renewed long ago.
    await lease.storeFor().create({
      holderIdentity: 'dead',
      leaseDurationSeconds: 15,
      acquireTime: 0,
      renewTime: 0,
      leaseTransitions: 3,
    });
    const b = candidate(lease, clock, 'b');
    await flush();
    // Not at once: b has only just observed the record, and trusts its own clock, not the holder's.
    expect(b.elector.isLeader).toBe(false);
    await clock.advance(14_000);
    expect(b.elector.isLeader).toBe(false);
    await clock.advance(3_000);
    expect(b.elector.isLeader).toBe(true);
    expect(lease.current?.record).toMatchObject({ holderIdentity: 'b', leaseTransitions: 4 });
  });

  it('stops leading (work aborted first) when it cannot renew within the renew deadline', async () => {
    const clock = new FakeClock();
    const lease = new FakeLease();
    const a = candidate(lease, clock, 'a');
    await flush();
    lease.unreachable = true;
    await clock.advance(8_000);
    expect(a.elector.isLeader).toBe(true);
    await clock.advance(2_000);
    expect(a.elector.isLeader).toBe(false);
    expect(a.log).toEqual(['started', 'stopped(work aborted: true)']);
    // Gave up before the lease (15 s) expired for the others: no two leaders at once.
    expect(clock.now() - (lease.current?.record.renewTime ?? 0)).toBeLessThan(15_000);
    lease.unreachable = false;
    await clock.advance(2_000);
    expect(a.elector.isLeader).toBe(true);
    expect(a.log.at(-1)).toBe('started');
  });

  it('steps down at once when another candidate holds the lease', async () => {
    const clock = new FakeClock();
    const lease = new FakeLease();
    const a = candidate(lease, clock, 'a');
    await flush();
    const current = lease.current;
    if (!current) throw new Error('no lease');
    await lease.storeFor().update({ ...current.record, holderIdentity: 'usurper' }, current.resourceVersion);
    await clock.advance(2_000);
    expect(a.elector.isLeader).toBe(false);
  });

  it('releases the lease on shutdown after stopping its work, and the next candidate takes over at once', async () => {
    const clock = new FakeClock();
    const lease = new FakeLease();
    const a = candidate(lease, clock, 'a');
    await flush();
    const b = candidate(lease, clock, 'b');
    await clock.advance(4_000);
    expect(b.elector.isLeader).toBe(false);
    a.stop.abort();
    await a.done;
    expect(a.log).toEqual(['started', 'stopped(work aborted: true)']);
    expect(lease.current?.record).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    await clock.advance(2_000);
    expect(b.elector.isLeader).toBe(true);
  });
});
