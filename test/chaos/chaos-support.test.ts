// The chaos suite's own parts that decide a verdict or a replay: the seeded random stream,
// the configuration from the environment, and the memory judgement.
import { describe, expect, it } from 'vitest';
import { ChaosConfigError, SHORT_FAULT_PHASE_MS, chaosConfigFrom } from './config.js';
import { MEMORY_WARMUP_MS, judgeMemory } from './memory.js';
import type { RssSample } from './operator-process.js';
import { SeededRandom } from './random.js';

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
