// Two replicas with leader election under chaos (issue 24), the short form CI runs: the CRD
// installed after both replicas started, the leader SIGKILLed during a rollout, then the new
// leader SIGSTOPped past its lease and SIGCONTinued, over the random faults of the
// one-replica run. A fixed seed by default (CHAOS_SEED replays another; CHAOS_DURATION
// lengthens it; `npm run chaos -- --replicas 2` is the same run by hand).
import { describe, it } from 'vitest';
import { chaosConfigFrom } from './config.js';
import { chaosTimeoutMs, runAndJudge } from './verdict.js';

/** The CI run's seed: its random choices are the same every time. */
const CI_SEED = '24';
const config = chaosConfigFrom({ ...process.env, CHAOS_REPLICAS: '2', CHAOS_SEED: process.env.CHAOS_SEED ?? CI_SEED });

describe('chaos with two replicas', () => {
  it(
    'hands over without split brain: a killed leader is replaced, a paused one steps down without a write',
    () => runAndJudge(config),
    chaosTimeoutMs(config),
  );
});
