// The chaos suite (issue 8): random faults in both emulators and SIGKILLs of the operator
// process while AgentDeployments are created, changed and deleted; then the invariants.
// Short by default (CI runs it with `npm test`); long with CHAOS_DURATION=10m or
// `npm run chaos -- --duration 10m`. The seed is printed; CHAOS_SEED replays a run's choices.
// CHAOS_REPLICAS=2 (`--replicas 2`) runs two replicas with leader election instead
// (ha-chaos.test.ts is that run's CI form).
import { describe, it } from 'vitest';
import { chaosConfigFrom } from './config.js';
import { chaosTimeoutMs, runAndJudge } from './verdict.js';

const config = chaosConfigFrom(process.env);

describe('chaos', () => {
  it(
    'keeps every invariant after random faults, operator kills and a churning workload',
    () => runAndJudge(config),
    chaosTimeoutMs(config),
  );
});
