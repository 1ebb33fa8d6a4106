// How many Secrets' values the operator holds right now: only referenced ones, so a platform
// team can see the Secret access model hold (and its memory stay small) from Prometheus.
import { Gauge, type Registry } from 'prom-client';

export function bindSecretValueMetrics(registry: Registry, heldValues: () => number): void {
  new Gauge({
    name: 'agent_operator_secret_values_held',
    help: 'Secrets whose values the operator holds in memory: only Secrets an AgentDeployment references.',
    registers: [registry],
    collect() {
      this.set(heldValues());
    },
  });
}
