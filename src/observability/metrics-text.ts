// The text /metrics answers: every metric, or only those named by `name[]` query parameters
// (`/metrics?name[]=controller_runtime_reconcile_total`), in the exposition format either way.
// Prometheus scrapes the whole registry every 15-60 s; a person with curl, or a benchmark
// that polls one counter several times a second, should not pay for building every series
// (agent_operator_agentdeployment_ready has one per object) to read one. The parameter's
// name and repeatable form follow Prometheus's own `/federate?match[]=`; unknown names are
// skipped, as a selector that matches nothing would be.
import type { Registry } from 'prom-client';

export async function metricsText(registry: Registry, query: URLSearchParams): Promise<string> {
  const names = query.getAll('name[]');
  if (names.length === 0) return registry.metrics();
  const parts: string[] = [];
  for (const name of new Set(names)) {
    if (registry.getSingleMetric(name) === undefined) continue;
    parts.push(await registry.getSingleMetricAsString(name));
  }
  return parts.length === 0 ? '' : `${parts.join('\n')}\n`;
}
