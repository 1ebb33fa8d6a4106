// The operator's domain metrics on prom-client: time from a spec change to DEPLOYED,
// revisions by final state, and objects by condition (computed at scrape time from the
// cache, so it is always true and costs nothing between scrapes).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DomainMetrics } from '../reconcilers/agentdeployment/domain-metrics.js';

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
      for (const { condition, status, count } of countByCondition()) this.set({ condition, status }, count);
    },
  });
  return {
    revisionFinished(state, rolloutSeconds) {
      revisions.inc({ state });
      if (state === 'DEPLOYED' && rolloutSeconds !== undefined) rollout.observe(rolloutSeconds);
    },
  };
}
