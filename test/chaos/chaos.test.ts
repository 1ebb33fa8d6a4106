// The chaos suite (issue 8): random faults in both emulators and SIGKILLs of the operator
// process while AgentDeployments are created, changed and deleted; then the invariants.
// Short by default (CI runs it with `npm test`); long with CHAOS_DURATION=10m or
// `npm run chaos -- --duration 10m`. The seed is printed; CHAOS_SEED replays a run's choices.
import { cp, mkdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chaosConfigFrom } from './config.js';
import { runChaos } from './scenario.js';
import { allInvariants, formatSummary } from './summary.js';

const config = chaosConfigFrom(process.env);
/** Setup, teardown and the final samples, beyond the fault phase and the settle bound. */
const OVERHEAD_MS = 60_000;
/**
 * Where a failed run's logs are kept: outside the test run's temp folder, which is emptied
 * (and checked empty) when the run ends. CHAOS_LOG_DIR moves it; `.chaos-logs/` is ignored by git.
 */
const KEPT_LOGS = process.env.CHAOS_LOG_DIR ?? fileURLToPath(new URL('../../.chaos-logs', import.meta.url));

describe('chaos', () => {
  it(
    'keeps every invariant after random faults, operator kills and a churning workload',
    async () => {
      console.log(`chaos seed ${config.seed} (set CHAOS_SEED to replay)`);
      const outcome = await runChaos(config, (line) => console.log(line));
      console.log(formatSummary(outcome));
      let passed = false;
      try {
        checkOutcome(outcome);
        passed = true;
      } finally {
        if (passed) {
          // The logs are for diagnosing a failure; a passing run leaves nothing behind.
          await rm(outcome.logDir, { recursive: true, force: true });
        } else {
          const kept = join(KEPT_LOGS, `seed-${config.seed}-${basename(outcome.logDir)}`);
          await mkdir(KEPT_LOGS, { recursive: true });
          await cp(outcome.logDir, kept, { recursive: true });
          await rm(outcome.logDir, { recursive: true, force: true });
          console.log(`chaos logs of the failed run kept at ${kept} (operator.log, workload.log)`);
        }
      }
    },
    config.faultPhaseMs + config.settleTimeoutMs + OVERHEAD_MS,
  );
});

function checkOutcome(outcome: Awaited<ReturnType<typeof runChaos>>): void {
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
  expect(outcome.faults.get('kube-start-burst') ?? 0).toBeGreaterThan(0);
  expect(outcome.workload.rejectedCreated).toBeGreaterThan(0);
  expect(outcome.workload.clashesCreated).toBeGreaterThan(0);
  expect(outcome.workload.suspends).toBeGreaterThan(0);
}
