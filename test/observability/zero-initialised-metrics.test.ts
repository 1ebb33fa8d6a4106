// Every series with a known label set exists at 0 before anything happens, as in
// controller-runtime: otherwise dashboards show "no data", alerts on them can never fire,
// and rate() misses the first error (it needs a sample before it).
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/controlplane/client/routes.js';
import { createControlPlaneMetrics, RETRY_REASONS } from '../../src/observability/controlplane-metrics.js';
import { bindDomainMetrics } from '../../src/observability/domain-metrics.js';
import { createOperatorRegistry } from '../../src/observability/registry.js';
import { controllerMetrics } from '../../src/runtime/controller/metrics.js';
import { workQueueMetrics } from '../../src/runtime/workqueue/metrics.js';

function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? '').split(',').filter(Boolean).sort().join(',');
    if (have === wanted) return Number(match[3]);
  }
  return undefined;
}

describe('series with a known label set start at 0', () => {
  it('workqueue: depth, adds, retries and both histograms, per queue', async () => {
    const registry = new Registry();
    workQueueMetrics(registry, {
      name: 'agentdeployment',
      unfinishedWorkSeconds: () => 0,
      longestRunningProcessorSeconds: () => 0,
    });
    const text = await registry.metrics();
    const name = { name: 'agentdeployment' };
    expect(sample(text, 'workqueue_depth', name)).toBe(0);
    expect(sample(text, 'workqueue_adds_total', name)).toBe(0);
    expect(sample(text, 'workqueue_retries_total', name)).toBe(0);
    expect(sample(text, 'workqueue_queue_duration_seconds_count', name)).toBe(0);
    expect(sample(text, 'workqueue_work_duration_seconds_count', name)).toBe(0);
  });

  it('controller: every result, the errors and the reconcile time', async () => {
    const registry = new Registry();
    controllerMetrics(registry, 'agentdeployment');
    const text = await registry.metrics();
    const controller = 'agentdeployment';
    for (const result of ['success', 'error', 'requeue', 'requeue_after'])
      expect(sample(text, 'controller_runtime_reconcile_total', { controller, result })).toBe(0);
    expect(sample(text, 'controller_runtime_reconcile_errors_total', { controller })).toBe(0);
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_count', { controller })).toBe(0);
    expect(sample(text, 'controller_runtime_active_workers', { controller })).toBe(0);
  });

  it('control-plane client: 429s per route, retries per route and reason', async () => {
    const registry = new Registry();
    createControlPlaneMetrics(registry);
    const text = await registry.metrics();
    for (const route of Object.values(ROUTES)) {
      expect(sample(text, 'agent_operator_controlplane_throttled_total', { route })).toBe(0);
      for (const reason of RETRY_REASONS)
        expect(sample(text, 'agent_operator_controlplane_retries_total', { route, reason })).toBe(0);
    }
    expect(RETRY_REASONS).toEqual(expect.arrayContaining(['429', '503', 'timeout', 'reset', 'connect']));
  });

  it('domain: every condition/status pair and every final revision state', async () => {
    const registry = new Registry();
    const metrics = bindDomainMetrics(registry, () => [{ condition: 'Ready', status: 'True', count: 2 }]);
    let text = await registry.metrics();
    expect(sample(text, 'agent_operator_resources', { condition: 'Ready', status: 'True' })).toBe(2);
    expect(sample(text, 'agent_operator_resources', { condition: 'Stalled', status: 'True' })).toBe(0);
    expect(sample(text, 'agent_operator_resources', { condition: 'Reconciling', status: 'Unknown' })).toBe(0);
    for (const state of ['DEPLOYED', 'SKIPPED', 'CREATE_FAILED', 'BUILD_FAILED', 'DEPLOY_FAILED'])
      expect(sample(text, 'agent_operator_revisions_total', { state })).toBe(0);
    metrics.revisionFinished('BUILD_FAILED', undefined);
    text = await registry.metrics();
    expect(sample(text, 'agent_operator_revisions_total', { state: 'BUILD_FAILED' })).toBe(1);
  });
});

describe('the operator registry', () => {
  it('carries the process metrics once, and no gauge named like a counter', async () => {
    const text = await createOperatorRegistry().metrics();
    const helps = text.split('\n').filter((line) => line.startsWith('# HELP '));
    const names = helps.map((line) => line.split(' ')[2]);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('process_cpu_user_seconds_total');
    expect(names).toContain('process_resident_memory_bytes');
    expect(names).toContain('nodejs_active_handles');
    const types = new Map(
      text
        .split('\n')
        .filter((line) => line.startsWith('# TYPE '))
        .map((line) => [line.split(' ')[2], line.split(' ')[3]] as const),
    );
    const misnamed = [...types].filter(([name, type]) => name?.endsWith('_total') && type !== 'counter');
    expect(misnamed).toEqual([]);
  });
});
