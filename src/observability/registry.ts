// The operator's one metrics registry: the process and Node.js collectors plus whatever the
// components bind to it. prom-client's default set includes three gauges whose names end in
// `_total` (nodejs_active_handles_total, _requests_total, _resources_total); Prometheus
// reserves that suffix for counters and `promtool check metrics` rejects them, so they are
// left out. The per-type gauges they sum (nodejs_active_handles{type} ...) stay. The build's
// own facts (agent_operator_build_info) belong to the process too, so they are bound here.
import { Registry, collectDefaultMetrics } from 'prom-client';
import { bindBuildInfo } from './build-info.js';

export const NON_CONFORMANT_DEFAULT_METRICS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
] as const;

export function createOperatorRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of NON_CONFORMANT_DEFAULT_METRICS) registry.removeSingleMetric(name);
  bindBuildInfo(registry);
  return registry;
}
