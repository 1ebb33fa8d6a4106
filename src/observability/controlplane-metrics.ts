// Binds the control-plane client's metrics hooks to a prom-client Registry. Route labels are
// templates (/v2/deployments/{deployment_id}), never ids, so the series count stays bounded.
// The 429 and retry counters start at 0 for every route (and, for retries, every reason a
// retry can have): a throttling panel then reads 0 rather than "no data", and rate() sees the
// first 429, which it cannot when the series is born with it.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { ClientMetrics } from '../controlplane/client/metrics.js';
import { RETRYABLE_STATUSES } from '../controlplane/client/retry-policy.js';
import { ROUTES } from '../controlplane/client/routes.js';

/** Every `reason` label a retry can carry: a retryable status, or the transport failure. */
export const RETRY_REASONS: readonly string[] = [
  ...[...RETRYABLE_STATUSES].map(String),
  'connect',
  'reset',
  'timeout',
];

export const CONTROLPLANE_METRIC_NAMES = {
  requests: 'agent_operator_controlplane_requests_total',
  duration: 'agent_operator_controlplane_request_duration_seconds',
  budgetWait: 'agent_operator_controlplane_budget_wait_seconds',
  throttled: 'agent_operator_controlplane_throttled_total',
  retries: 'agent_operator_controlplane_retries_total',
} as const;

export function createControlPlaneMetrics(registry: Registry): ClientMetrics {
  const registers = [registry];
  const requests = new Counter({
    name: CONTROLPLANE_METRIC_NAMES.requests,
    help: 'Requests sent to the control plane, by route template, method and status code (or transport failure).',
    labelNames: ['route', 'method', 'code'] as const,
    registers,
  });
  const duration = new Histogram({
    name: CONTROLPLANE_METRIC_NAMES.duration,
    help: 'Duration of one control-plane request attempt, in seconds.',
    labelNames: ['route', 'method'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const budgetWait = new Histogram({
    name: CONTROLPLANE_METRIC_NAMES.budgetWait,
    help: 'Time a request waited for rate budget before it was sent, in seconds.',
    buckets: [0, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  const throttled = new Counter({
    name: CONTROLPLANE_METRIC_NAMES.throttled,
    help: 'HTTP 429 responses received from the control plane, by route template.',
    labelNames: ['route'] as const,
    registers,
  });
  const retries = new Counter({
    name: CONTROLPLANE_METRIC_NAMES.retries,
    help: 'Control-plane request retries, by route template and reason (status or transport failure).',
    labelNames: ['route', 'reason'] as const,
    registers,
  });
  for (const route of Object.values(ROUTES)) {
    throttled.inc({ route }, 0);
    for (const reason of RETRY_REASONS) retries.inc({ route, reason }, 0);
  }
  return {
    requestDone: ({ route, method, code, seconds }) => {
      requests.inc({ route, method, code });
      duration.observe({ route, method }, seconds);
    },
    budgetWaited: (seconds) => budgetWait.observe(seconds),
    throttled: ({ route }) => throttled.inc({ route }),
    retried: ({ route, reason }) => retries.inc({ route, reason }),
  };
}
