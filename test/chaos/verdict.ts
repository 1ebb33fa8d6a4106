// One chaos run as a test: run it, print the summary, fail on any broken invariant or on a run
// that proved nothing, and keep the logs of a failed run (a passing one leaves nothing).
import { cp, mkdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { ChaosConfig } from './config.js';
import { LEASE_DURATION_MS } from './leader-faults.js';
import { runChaos, type ChaosOutcome } from './scenario.js';
import { allInvariants, formatSummary } from './summary.js';

/** Setup, teardown and the final samples, beyond the fault phase and the settle bound. */
export const OVERHEAD_MS = 60_000;
/**
 * Where a failed run's logs are kept (a passing run's too with CHAOS_KEEP_LOGS=1): outside the test run's temp folder, which is emptied
 * (and checked empty) when the run ends. CHAOS_LOG_DIR moves it; `.chaos-logs/` is ignored by git.
 */
const KEPT_LOGS = process.env.CHAOS_LOG_DIR ?? fileURLToPath(new URL('../../.chaos-logs', import.meta.url));

export function chaosTimeoutMs(config: ChaosConfig): number {
  // Two replicas: the leader faults in flight when the phase ends may run 45 s longer.
  return config.faultPhaseMs + config.settleTimeoutMs + OVERHEAD_MS + (config.replicas === 2 ? 45_000 : 0);
}

export async function runAndJudge(config: ChaosConfig): Promise<void> {
  console.log(`chaos seed ${config.seed}, ${config.replicas} replica(s) (set CHAOS_SEED to replay)`);
  const outcome = await runChaos(config, (line) => console.log(line));
  console.log(formatSummary(outcome));
  let passed = false;
  try {
    checkOutcome(config, outcome);
    passed = true;
  } finally {
    if (passed && process.env.CHAOS_KEEP_LOGS !== '1') {
      // The logs are for diagnosing a failure; a passing run leaves nothing behind.
      await rm(outcome.logDir, { recursive: true, force: true });
    } else {
      const kept = join(KEPT_LOGS, `seed-${config.seed}-${basename(outcome.logDir)}`);
      await mkdir(KEPT_LOGS, { recursive: true });
      await cp(outcome.logDir, kept, { recursive: true });
      await rm(outcome.logDir, { recursive: true, force: true });
      console.log(`chaos logs of the ${passed ? '' : 'failed '}run kept at ${kept} (operator logs, workload.log)`);
    }
  }
}

function checkOutcome(config: ChaosConfig, outcome: ChaosOutcome): void {
  const failed = allInvariants(outcome)
    .filter((invariant) => !invariant.ok)
    .map((invariant) => `${invariant.name}: ${invariant.problems.slice(0, 5).join('; ')}`);
  expect(failed, `seed ${config.seed}; the summary above lists what diverged`).toEqual([]);
  // A run that did nothing proves nothing: faults and kills must really have happened.
  expect(outcome.operator.kills).toBeGreaterThan(0);
  expect([...outcome.faults.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(5);
  expect(outcome.workload.created).toBeGreaterThanOrEqual(15);
  // ... and the mistakes of a bad day too.
  expect(outcome.faults.get('cp-401-window') ?? 0).toBeGreaterThan(0);
  expect(outcome.workload.rejectedCreated).toBeGreaterThan(0);
  expect(outcome.workload.clashesCreated).toBeGreaterThan(0);
  expect(outcome.workload.suspends).toBeGreaterThan(0);
  if (config.replicas === 1) {
    expect(outcome.faults.get('kube-start-burst') ?? 0).toBeGreaterThan(0);
    return;
  }
  // Two replicas: the CRD came late; a leader was killed mid-rollout and replaced; a leader
  // was paused past its lease and another took over before it resumed.
  const faults = outcome.leadership?.faults ?? [];
  expect(outcome.faults.get('crd-late') ?? 0).toBe(1);
  const killed = faults.filter((f) => f.kind === 'leader-sigkill' && f.midRollout && f.to !== undefined);
  expect(killed.length, 'a leader killed mid-rollout and replaced').toBeGreaterThan(0);
  const paused = faults.filter(
    (f) => f.kind === 'leader-sigstop' && (f.pausedMs ?? 0) > LEASE_DURATION_MS && f.to !== undefined && f.to !== f.from,
  );
  expect(paused.length, 'a leader paused past its lease and replaced before it resumed').toBeGreaterThan(0);
}
