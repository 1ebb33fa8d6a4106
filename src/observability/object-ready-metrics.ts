// agent_operator_agentdeployment_ready: one series per AgentDeployment, 1 while its Ready
// condition is True, else 0 (False, Unknown, or no status yet). agent_operator_resources
// counts objects by condition; this names them, so an alert can say which one is not Ready.
// Computed from the informer's cache at scrape time: always current, nothing to forget when
// an object goes, and no work between scrapes. The labels are the object's namespace and
// name only, which Kubernetes already bounds (one series per object, as kube-state-metrics).
import { Gauge, type Registry } from 'prom-client';

export interface ConditionedObject {
  metadata: { name?: string; namespace?: string };
  status?: { conditions?: ReadonlyArray<{ type: string; status: string }> };
}

export function bindAgentDeploymentReadyMetric(registry: Registry, objects: () => readonly ConditionedObject[]): void {
  new Gauge({
    name: 'agent_operator_agentdeployment_ready',
    help: '1 while the AgentDeployment is Ready (condition Ready=True), else 0; one series per object.',
    labelNames: ['namespace', 'name'],
    registers: [registry],
    collect() {
      this.reset();
      for (const object of objects()) {
        const ready = object.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
        this.set({ namespace: object.metadata.namespace ?? '', name: object.metadata.name ?? '' }, ready ? 1 : 0);
      }
    },
  });
}
