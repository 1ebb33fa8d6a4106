// The Grafana dashboard: valid JSON that Grafana imports, and queries that name the metrics
// the operator really serves (a renamed metric would leave a panel silently empty).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHART_DIR } from './support/paths.js';

interface Panel {
  type: string;
  title: string;
  id: number;
  gridPos: { h: number; w: number; x: number; y: number };
  targets?: Array<{ expr: string; refId: string }>;
}

interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string }> };
}

const dashboard = JSON.parse(
  await readFile(join(CHART_DIR, 'dashboards', 'agent-operator.json'), 'utf8'),
) as Dashboard;
const expressions = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));

/** The metric names of the operator's contract (histograms are queried through _bucket). */
const SERVED_METRICS = [
  'controller_runtime_reconcile_total',
  'controller_runtime_reconcile_errors_total',
  'controller_runtime_reconcile_time_seconds_bucket',
  'controller_runtime_active_workers',
  'workqueue_depth',
  'workqueue_adds_total',
  'workqueue_retries_total',
  'workqueue_queue_duration_seconds_bucket',
  'workqueue_work_duration_seconds_bucket',
  'leader_election_master_status',
  'agent_operator_controlplane_requests_total',
  'agent_operator_controlplane_request_duration_seconds_bucket',
  'agent_operator_controlplane_budget_wait_seconds_bucket',
  'agent_operator_controlplane_throttled_total',
  'agent_operator_controlplane_retries_total',
  'agent_operator_revision_rollout_seconds_bucket',
  'agent_operator_revisions_total',
  'agent_operator_resources',
  'process_cpu_seconds_total',
  'process_resident_memory_bytes',
  'nodejs_eventloop_lag_p99_seconds',
];

describe('Grafana dashboard', () => {
  it('has a stable uid, unique panel ids and a Prometheus data-source variable', () => {
    expect(dashboard.uid).toBe('agent-operator');
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(dashboard.templating.list).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'datasource', type: 'datasource' })]),
    );
  });

  it('queries every metric the operator serves, and no metric it does not', () => {
    const queried = new Set(expressions.flatMap((e) => e.match(/\b[a-z_][a-z0-9_]*(?=\{)/g) ?? []));
    for (const metric of SERVED_METRICS) expect(queried, metric).toContain(metric);
    for (const metric of queried) expect(SERVED_METRICS, metric).toContain(metric);
  });

  it('keeps panels inside the 24-column grid without overlaps', () => {
    const cells = new Set<string>();
    for (const panel of dashboard.panels) {
      const { x, y, w, h } = panel.gridPos;
      expect(x + w, panel.title).toBeLessThanOrEqual(24);
      for (let row = y; row < y + h; row++) {
        for (let column = x; column < x + w; column++) {
          const cell = `${row}:${column}`;
          expect(cells.has(cell), `${panel.title} overlaps at ${cell}`).toBe(false);
          cells.add(cell);
        }
      }
    }
  });

  it('covers the questions an operator on call asks', () => {
    const titles = dashboard.panels.map((p) => p.title.toLowerCase()).join('\n');
    for (const topic of [
      'reconcile rate',
      'reconcile errors',
      'reconcile latency',
      'queue depth',
      'requests by code',
      '429',
      'budget wait',
      'retries',
      'rollout time',
      'by condition',
      'leader',
    ]) {
      expect(titles, topic).toContain(topic);
    }
  });
});
