// The chaos suite's own parts that decide a verdict or a replay: the seeded random stream,
// the configuration from the environment, the memory and descriptor judgement, and the
// two-replica run's "no write without the lease" rule.
import { describe, expect, it } from 'vitest';
import { ChaosConfigError, SHORT_FAULT_PHASE_MS, SHORT_HA_FAULT_PHASE_MS, chaosConfigFrom } from './config.js';
import { MEMORY_WARMUP_MS, judgeMemory } from './memory.js';
import type { RssSample } from './operator-process.js';
import { SeededRandom } from './random.js';
import type { Stack } from '../operator/harness.js';
import { LeaseWatch, type LeaseRecord } from './lease-watch.js';
import { checkWritesUnderLease, WriteJournal } from './write-journal.js';

const MiB = 1024 * 1024;

function samples(
  pid: number,
  startMs: number,
  rssMiB: (second: number) => number,
  seconds: number,
): RssSample[] {
  return Array.from({ length: seconds }, (_, second) => ({
    atMs: startMs + second * 1000,
    pid,
    uptimeMs: second * 1000,
    rssBytes: rssMiB(second) * MiB,
  }));
}

describe('SeededRandom', () => {
  it('replays the same choices for the same seed, and forks independent streams', () => {
    const draw = (random: SeededRandom) => Array.from({ length: 20 }, () => random.int(0, 1_000_000));
    expect(draw(new SeededRandom(42))).toEqual(draw(new SeededRandom(42)));
    expect(draw(new SeededRandom(42))).not.toEqual(draw(new SeededRandom(43)));
    const parent = new SeededRandom(7);
    expect(draw(parent.fork('kills'))).toEqual(draw(new SeededRandom(7).fork('kills')));
    expect(draw(parent.fork('kills'))).not.toEqual(draw(parent.fork('workload')));
  });

  it('never picks a zero weight', () => {
    const random = new SeededRandom(1);
    for (let i = 0; i < 1_000; i++) expect(random.weighted({ a: 0, b: 1, c: 0 })).toBe('b');
  });
});

describe('chaosConfigFrom', () => {
  it('is short by default, long when asked, and names the variable on bad input', () => {
    expect(chaosConfigFrom({ CHAOS_SEED: '5' })).toMatchObject({
      seed: 5,
      faultPhaseMs: SHORT_FAULT_PHASE_MS,
      rateLimit: { count: 30, windowSeconds: 2 },
    });
    const long = chaosConfigFrom({ CHAOS_DURATION: '10m', CHAOS_RATE_LIMIT: '200/2' });
    expect(long).toMatchObject({ faultPhaseMs: 600_000, killsUntilMs: 300_000, rateLimit: { count: 200 } });
    expect(() => chaosConfigFrom({ CHAOS_DURATION: '600' })).toThrow(/CHAOS_DURATION/);
    expect(() => chaosConfigFrom({ CHAOS_SEED: '-1' })).toThrow(ChaosConfigError);
    expect(() => chaosConfigFrom({ CHAOS_RATE_LIMIT: 'fast' })).toThrow(/CHAOS_RATE_LIMIT/);
  });

  it('runs one replica by default; two make the short run 50 s with the kill allowed until 10 s before its end', () => {
    expect(chaosConfigFrom({ CHAOS_SEED: '5' }).replicas).toBe(1);
    expect(chaosConfigFrom({ CHAOS_SEED: '5', CHAOS_REPLICAS: '2' })).toMatchObject({
      replicas: 2,
      faultPhaseMs: SHORT_HA_FAULT_PHASE_MS,
      killsUntilMs: SHORT_HA_FAULT_PHASE_MS - 10_000,
    });
    expect(chaosConfigFrom({ CHAOS_REPLICAS: '2', CHAOS_DURATION: '30m' })).toMatchObject({ killsUntilMs: 900_000 });
    expect(() => chaosConfigFrom({ CHAOS_REPLICAS: '3' })).toThrow(/CHAOS_REPLICAS: must be 1 or 2; got "3"/);
  });
});

describe('judgeMemory', () => {
  it('passes a plateau and ignores the warm-up climb and killed processes', () => {
    const killed = samples(1, 0, () => 400, 20); // a process killed early does not count
    const survivor = samples(
      2,
      20_000,
      (s) => (s * 1000 < MEMORY_WARMUP_MS ? 50 + s * 10 : 180 + (s % 3)),
      60,
    );
    const verdict = judgeMemory([...killed, ...survivor], 0, 80_000);
    expect(verdict).toMatchObject({ ok: true, survivorPid: 2 });
    expect(verdict.peakBytes).toBe(400 * MiB);
  });

  it('fails steady growth in the survivor, naming the medians', () => {
    const leaking = samples(3, 0, (s) => 150 + s * 2, 120);
    const verdict = judgeMemory(leaking, 0, 120_000);
    expect(verdict.ok).toBe(false);
    expect(verdict.problem).toMatch(/grew from .* MiB to .* MiB/);
  });

  it('refuses to judge from too few samples', () => {
    expect(
      judgeMemory(
        samples(4, 0, () => 100, 12),
        0,
        12_000,
      ),
    ).toMatchObject({ ok: false });
    expect(judgeMemory([], 0, 1).problem).toMatch(/no memory sample/);
  });
});

describe('file descriptors in the memory verdict', () => {
  it('passes a steady count and fails one that keeps growing, naming the medians', () => {
    const steady = samples(5, 0, () => 150, 60).map((s, i) => ({ ...s, fds: 30 + (i % 5) }));
    expect(judgeMemory(steady, 0, 60_000)).toMatchObject({ ok: true, earlierMedianFds: 32, laterMedianFds: 32 });
    const leaking = samples(6, 0, () => 150, 60).map((s, i) => ({ ...s, fds: 30 + i }));
    const verdict = judgeMemory(leaking, 0, 60_000);
    expect(verdict.ok).toBe(false);
    expect(verdict.problem).toMatch(/open file descriptors grew from \d+ to \d+/);
  });
});

describe('no write without the lease', () => {
  const record = (holder: string, renewTime: number, acquireTime = renewTime): LeaseRecord => ({
    holder,
    renewTime,
    acquireTime,
    leaseDurationMs: 15_000,
    transitions: 0,
    seenAt: renewTime + 5,
  });
  const write = (journal: WriteJournal, identity: string | undefined, atMs: number, method = 'PATCH'): void =>
    journal.record({
      atMs,
      method,
      route: '/v2/deployments/{deployment_id}',
      userAgent: identity === undefined ? 'agent-operator' : `agent-operator (${identity})`,
    });

  it('allows the holder up to its last renewal plus the lease, and nobody else', () => {
    const leases = new LeaseWatch({} as Stack);
    // a renews at 0 and 2 s, then freezes; b takes over at 20 s.
    leases.records.push(record('a', 0), record('a', 2_000, 0), record('b', 20_000));
    const journal = new WriteJournal();
    write(journal, 'a', 1_000); // holds it
    write(journal, 'a', 16_999); // its own clock: 2 s + 15 s not yet over
    write(journal, 'a', 1_500, 'GET'); // reads never count
    write(journal, 'b', 21_000); // the new holder
    expect(checkWritesUnderLease(journal, leases)).toMatchObject({ ok: true, problems: [] });

    write(journal, 'a', 17_500); // started after its lease ran out by its own clock
    write(journal, 'a', 20_500); // after b took over
    write(journal, 'b', 10_000); // before b ever held it
    write(journal, undefined, 21_000); // says nobody
    const verdict = checkWritesUnderLease(journal, leases);
    expect(verdict.ok).toBe(false);
    expect(verdict.problems).toEqual([
      expect.stringMatching(/from a at .*, 500 ms after its lease ran out/),
      expect.stringMatching(/from a at .*, 3500 ms after its lease ran out/),
      expect.stringMatching(/from b at .*, which had never held the lease/),
      expect.stringMatching(/names no replica/),
    ]);
  });

  it('knows a term from its renewals when the harness missed the acquisition', () => {
    const leases = new LeaseWatch({} as Stack);
    // b acquired at 20 s (not seen) and renewed at 22 s (seen, acquireTime 20 s).
    leases.records.push(record('a', 0), record('b', 22_000, 20_000));
    const journal = new WriteJournal();
    write(journal, 'b', 21_000);
    expect(checkWritesUnderLease(journal, leases)).toMatchObject({ ok: true });
    write(journal, 'a', 21_000);
    expect(checkWritesUnderLease(journal, leases).problems).toEqual([
      expect.stringMatching(/from a at .*, 6000 ms after its lease ran out/),
    ]);
  });

  it('a paused holder that renews its own term again was still without the lease in between', () => {
    const leases = new LeaseWatch({} as Stack);
    // a froze after its stamp at 2 s, resumed at 20 s and renewed its own lease at 21 s.
    leases.records.push(record('a', 0), record('a', 2_000, 0), record('a', 21_000, 0));
    const journal = new WriteJournal();
    write(journal, 'a', 20_100);
    write(journal, 'a', 21_100);
    expect(checkWritesUnderLease(journal, leases).problems).toEqual([
      expect.stringMatching(/from a at .*, 3100 ms after its lease ran out/),
    ]);
  });

  it('a released lease is nobody’s: the former holder may not write after the release', () => {
    const leases = new LeaseWatch({} as Stack);
    leases.records.push(record('a', 0), { ...record('', 3_000), leaseDurationMs: 1_000 });
    const journal = new WriteJournal();
    write(journal, 'a', 4_000);
    expect(checkWritesUnderLease(journal, leases).problems).toEqual([
      expect.stringMatching(/from a at .*, while the lease was not its own/),
    ]);
  });
});
