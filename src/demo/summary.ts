// The demo's closing figures, read from the operator's own metrics registry: what a user
// would see on its /metrics endpoint.
import type { Registry } from 'prom-client';

export interface CallSummary {
  total: number;
  byRoute: Array<{ method: string; route: string; count: number }>;
  throttled429: number;
}

interface MetricValue {
  value: number;
  labels: Record<string, string | number>;
}

export async function callSummary(registry: Registry): Promise<CallSummary> {
  const metrics = (await registry.getMetricsAsJSON()) as Array<{ name: string; values?: MetricValue[] }>;
  const requests =
    metrics.find((metric) => metric.name === 'agent_operator_controlplane_requests_total')?.values ?? [];
  const throttled =
    metrics.find((metric) => metric.name === 'agent_operator_controlplane_throttled_total')?.values ?? [];
  const grouped = new Map<string, { method: string; route: string; count: number }>();
  for (const { value, labels } of requests) {
    const method = String(labels.method ?? '?');
    const route = String(labels.route ?? '?');
    const entry = grouped.get(`${method} ${route}`) ?? { method, route, count: 0 };
    entry.count += value;
    grouped.set(`${method} ${route}`, entry);
  }
  const byRoute = [...grouped.values()].sort((a, b) => b.count - a.count);
  return {
    total: byRoute.reduce((sum, row) => sum + row.count, 0),
    byRoute,
    throttled429: throttled.reduce((sum, { value }) => sum + value, 0),
  };
}
