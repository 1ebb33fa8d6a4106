// The operator's domain metrics on prom-client: time from a spec change to DEPLOYED,
// revisions by final state, and objects by condition (computed at scrape time from the
// cache, so it is always true and costs nothing between scrapes). Every known state and
// condition/status pair is exported, at 0 when nothing is in it: "0 stalled" must read as 0,
// not as "no data", and the Stalled alert needs the series to exist.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { TERMINAL_REVISION_STATUSES } from '../controlplane/models/revision.js';
import type { DomainMetrics } from '../reconcilers/agentdeployment/domain-metrics.js';

/** The kstatus conditions every AgentDeployment carries, and a condition's possible statuses. */
export const CONDITION_TYPES = ['Ready', 'Reconciling', 'Stalled'] as const;
export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;
/** The results a smoke-test call is counted under. */
export const SMOKE_TEST_RESULTS = ['passed', 'failed', 'retry'] as const;

export interface ConditionCount {
  condition: string;
  status: string;
  count: number;
}

export function bindDomainMetrics(
  registry: Registry,
  countByCondition: () => ConditionCount[],
): DomainMetrics {
  const rollout = new Histogram({
    name: 'agent_operator_revision_rollout_seconds',
    help: 'Time from the operator sending a change (create or revision-making patch) to the revision being DEPLOYED.',
    buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800],
    registers: [registry],
  });
  const revisions = new Counter({
    name: 'agent_operator_revisions_total',
    help: 'Revisions that reached a terminal state, by state.',
    labelNames: ['state'],
    registers: [registry],
  });
  new Gauge({
    name: 'agent_operator_resources',
    help: 'AgentDeployment objects by condition type and status.',
    labelNames: ['condition', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const condition of CONDITION_TYPES)
        for (const status of CONDITION_STATUSES) this.set({ condition, status }, 0);
      for (const { condition, status, count } of countByCondition()) this.set({ condition, status }, count);
    },
  });
  const smokeTests = new Histogram({
    name: 'agent_operator_smoke_test_duration_seconds',
    help: 'Duration of each smoke-test call to a deployed agent, by result: passed, failed (the verdict) or retry (failed, tried again while the agent warms up).',
    labelNames: ['result'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60],
    registers: [registry],
  });
  for (const result of SMOKE_TEST_RESULTS) smokeTests.zero({ result });
  for (const state of TERMINAL_REVISION_STATUSES) revisions.inc({ state }, 0);
  return {
    revisionFinished(state, rolloutSeconds) {
      revisions.inc({ state });
      if (state === 'DEPLOYED' && rolloutSeconds !== undefined) rollout.observe(rolloutSeconds);
    },
    smokeTestCalled(result, seconds) {
      smokeTests.observe({ result }, seconds);
    },
  };
}
