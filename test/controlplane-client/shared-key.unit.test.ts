// Installations that share one API key, each with its own bucket sized for the whole key,
// against a server that counts the key in fixed windows and answers 429 with Retry-After
// (as the control-plane emulator does). Virtual time; each installation sends the moment its
// bucket allows, the worst case for the server. What matters: how many 429s they earn, how
// much of the key they use between them, and how they split it.
import { describe, expect, it } from 'vitest';
import { AdaptiveBucket, DEFAULT_ADAPTATION } from '../../src/controlplane/budget/adaptive-bucket.js';
import { DEFAULT_SAFETY_MARGIN } from '../../src/controlplane/budget/fixed-window-shape.js';
import type { RateLimit } from '../../src/controlplane/budget/rate-table.js';
import { seededRandom } from './support/fake-clock.js';

interface Installation {
  bucket: AdaptiveBucket;
  /** Sends only from this time on (ms), and stops at `stopsAt`. */
  startsAt: number;
  stopsAt: number;
  answered: number;
  throttled: number;
}

interface Outcome {
  installations: Installation[];
  /** Answered requests of all installations, as a fraction of what the key allowed over the run. */
  keyUse: number;
}

function simulate(
  limit: RateLimit,
  durationMs: number,
  phaseMs: number,
  plans: readonly { startsAt?: number; stopsAt?: number }[],
): Outcome {
  const random = seededRandom(7);
  const windowMs = limit.windowSeconds * 1000;
  const installations: Installation[] = plans.map((plan) => ({
    bucket: new AdaptiveBucket(limit, DEFAULT_SAFETY_MARGIN, DEFAULT_ADAPTATION, random, 0),
    startsAt: plan.startsAt ?? 0,
    stopsAt: plan.stopsAt ?? durationMs,
    answered: 0,
    throttled: 0,
  }));
  let windowIndex = Number.NaN;
  let used = 0;
  let now = 0;
  while (now < durationMs) {
    let next = Number.POSITIVE_INFINITY;
    for (const installation of installations) {
      if (now < installation.startsAt) {
        next = Math.min(next, installation.startsAt);
        continue;
      }
      if (now >= installation.stopsAt) continue;
      const wait = installation.bucket.waitMs(now);
      if (wait > 0) {
        next = Math.min(next, now + wait);
        continue;
      }
      installation.bucket.take(now);
      const index = Math.floor((now + phaseMs) / windowMs);
      if (index !== windowIndex) {
        windowIndex = index;
        used = 0;
      }
      if (used < limit.count) {
        used += 1;
        installation.answered += 1;
        installation.bucket.succeeded();
      } else {
        installation.throttled += 1;
        const untilReset = (index + 1) * windowMs - (now + phaseMs);
        installation.bucket.throttled(now, now, Math.max(1, Math.ceil(untilReset / 1000)) * 1000);
      }
      next = Math.min(next, now);
    }
    if (next === Number.POSITIVE_INFINITY) break;
    // Whole milliseconds, as timers fire; never stand still.
    now = next > now ? Math.ceil(next) : now + 1e-3;
  }
  const answered = installations.reduce((sum, i) => sum + i.answered, 0);
  return { installations, keyUse: answered / ((limit.count * durationMs) / windowMs) };
}

const limit: RateLimit = { count: 100, windowSeconds: 10 };
const phases = [0, 2_500, 5_000, 7_500];

describe('two installations sharing one key', () => {
  it.each(phases)('earn one 429 each while they learn it, at window phase %i ms', (phase) => {
    const { installations } = simulate(limit, 40_000, phase, [{}, {}]);
    expect(installations.map((i) => i.throttled)).toEqual([1, 1]);
  });

  it.each(phases)(
    'stay under 1%% 429s over five minutes, split the key evenly and use most of it (phase %i ms)',
    (phase) => {
      const { installations, keyUse } = simulate(limit, 300_000, phase, [{}, {}]);
      const throttled = installations.reduce((sum, i) => sum + i.throttled, 0);
      const calls = installations.reduce((sum, i) => sum + i.throttled + i.answered, 0);
      expect(throttled / calls).toBeLessThan(0.01);
      const [a, b] = installations.map((i) => i.answered);
      expect(Math.min(a ?? 0, b ?? 0) / Math.max(a ?? 1, b ?? 1)).toBeGreaterThan(0.9);
      expect(keyUse).toBeGreaterThan(0.85);
    },
  );

  it('when the other installation stops, the one left climbs back to the whole key within two minutes', () => {
    const { installations } = simulate(limit, 150_000, 0, [{}, { stopsAt: 30_000 }]);
    expect(installations[0]?.bucket.snapshot(150_000).factor).toBe(1);
  });

  it('a single installation never meets a 429, so it keeps the whole configured rate', () => {
    const { installations, keyUse } = simulate(limit, 120_000, 3_000, [{}]);
    expect(installations[0]?.throttled).toBe(0);
    expect(keyUse).toBeGreaterThan(0.97);
  });

  it('an installation that joins late gets a fair part within a few minutes', () => {
    const { installations } = simulate(limit, 600_000, 0, [{}, { startsAt: 60_000 }]);
    const [first, late] = installations.map((i) => i.bucket.snapshot(600_000).factor);
    // Both near half the key (neither starved), and few 429s for it.
    expect(Math.min(first ?? 0, late ?? 0)).toBeGreaterThan(0.3);
    const throttled = installations.reduce((sum, i) => sum + i.throttled, 0);
    const calls = installations.reduce((sum, i) => sum + i.throttled + i.answered, 0);
    expect(throttled / calls).toBeLessThan(0.01);
  });
});
