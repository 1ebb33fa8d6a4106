// How long the chaos run lasts and which seed it uses. The defaults keep the whole file
// under ~90 s so it can run in CI with `npm test`; a long run is asked for explicitly with
// CHAOS_DURATION (or `npm run chaos -- --duration 10m`, which sets it).
import { parseDuration } from '../../src/operator/duration.js';
import { ConfigError, parseRateLimit } from '../../src/operator/config.js';

export interface ChaosConfig {
  seed: number;
  /** 1: the operator killed at random. 2: two replicas with leader election, the leader faulted. */
  replicas: 1 | 2;
  /** The emulator's limit per API key, and the operator's --rate-limit: the same on purpose. */
  rateLimit: { count: number; windowSeconds: number };
  /** How long workload and faults run together. */
  faultPhaseMs: number;
  /**
   * Operator kills happen only before this moment of the fault phase (its first half), so
   * that one operator process lives through the second half: memory is judged on it.
   */
  killsUntilMs: number;
  /** Upper bound of the wait for convergence once faults stop (generous: never flaky). */
  settleTimeoutMs: number;
  /** How many objects the workload keeps alive at most, and creates at most in total. */
  maxLiveObjects: number;
  maxCreatedObjects: number;
}

/**
 * The default limit (CHAOS_RATE_LIMIT overrides it). Low on purpose: at 200/2 s this
 * workload peaks near 25 requests per window, an eighth of the limit, and "never exceeded
 * the budget" would hold without trying. At 30/2 s the busiest windows reach the limit.
 */
export const DEFAULT_RATE_LIMIT = '30/2';

/** The fault phase of the short (CI and default) run. */
export const SHORT_FAULT_PHASE_MS = 40_000;

export class ChaosConfigError extends Error {
  override readonly name = 'ChaosConfigError';
}

/**
 * The fault phase of the short two-replica run: a leader killed mid-rollout (15 s until the
 * standby sees the lease expire) and then one paused past its lease (15 s and more) do not
 * fit in 40 s.
 */
export const SHORT_HA_FAULT_PHASE_MS = 50_000;

export function chaosConfigFrom(env: NodeJS.ProcessEnv): ChaosConfig {
  const replicas = parseReplicas(env.CHAOS_REPLICAS);
  const shortPhaseMs = replicas === 2 ? SHORT_HA_FAULT_PHASE_MS : SHORT_FAULT_PHASE_MS;
  const faultPhaseMs = parseFaultPhase(env.CHAOS_DURATION, shortPhaseMs);
  const seed = parseSeed(env.CHAOS_SEED);
  const long = faultPhaseMs > shortPhaseMs;
  return {
    seed,
    replicas,
    rateLimit: parseChaosRateLimit(env.CHAOS_RATE_LIMIT),
    faultPhaseMs,
    // Two replicas, short run: the one kill may come late (it waits for a rollout), and the
    // replica that was not killed is the survivor whose memory is judged.
    killsUntilMs: replicas === 2 && !long ? faultPhaseMs - 10_000 : Math.floor(faultPhaseMs / 2),
    settleTimeoutMs: long ? 180_000 : 120_000,
    maxLiveObjects: long ? 40 : 25,
    // A long run keeps churning: names are never reused (an Orphan-deleted object leaves a
    // deployment with its name behind), so the total grows with the duration.
    maxCreatedObjects: long ? Math.max(50, Math.ceil(faultPhaseMs / 1_500)) : 40,
  };
}

function parseFaultPhase(text: string | undefined, shortPhaseMs: number): number {
  if (text === undefined || text.trim() === '') return shortPhaseMs;
  const ms = parseDuration(text.trim());
  if (ms === undefined || ms < 10_000) {
    throw new ChaosConfigError(
      `CHAOS_DURATION: must be a duration of at least 10s such as 90s, 10m or 1h; got "${text}"`,
    );
  }
  return ms;
}

function parseChaosRateLimit(text: string | undefined): { count: number; windowSeconds: number } {
  try {
    return parseRateLimit(
      text === undefined || text.trim() === '' ? DEFAULT_RATE_LIMIT : text,
      'CHAOS_RATE_LIMIT',
    );
  } catch (error) {
    throw new ChaosConfigError(error instanceof ConfigError ? error.message : String(error));
  }
}

export function rateLimitText(limit: { count: number; windowSeconds: number }): string {
  return `${limit.count}/${limit.windowSeconds}s`;
}

function parseReplicas(text: string | undefined): 1 | 2 {
  const value = text?.trim() ?? '';
  if (value === '' || value === '1') return 1;
  if (value === '2') return 2;
  throw new ChaosConfigError(`CHAOS_REPLICAS: must be 1 or 2; got "${text ?? ''}"`);
}

function parseSeed(text: string | undefined): number {
  if (text === undefined || text.trim() === '') return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(text.trim());
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) {
    throw new ChaosConfigError(`CHAOS_SEED: must be a whole number from 0 to 4294967295; got "${text}"`);
  }
  return seed;
}
