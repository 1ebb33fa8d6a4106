// controller-runtime's reconcile metrics, under the names its dashboards and alerts query.
// Like controller-runtime's initMetrics, every series of a controller starts at 0 (each
// result, the errors, the histogram): rate() over a counter that appears only with the
// first error misses that error, and a panel over it shows "no data" until then.
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { counterIn, gaugeIn, histogramIn, RECONCILE_BUCKETS } from '../metrics/registry-metrics.js';

export const RECONCILE_OUTCOMES = ['success', 'error', 'requeue', 'requeue_after'] as const;
export type ReconcileOutcome = (typeof RECONCILE_OUTCOMES)[number];

export interface ControllerMetrics {
  reconcileTotal: Counter<'controller' | 'result'>;
  reconcileErrors: Counter<'controller'>;
  reconcileTime: Histogram<'controller'>;
  activeWorkers: Gauge<'controller'>;
  maxConcurrentReconciles: Gauge<'controller'>;
}

export function controllerMetrics(registry: Registry, controller: string): ControllerMetrics {
  const metrics: ControllerMetrics = {
    reconcileTotal: counterIn(
      registry,
      'controller_runtime_reconcile_total',
      'Total number of reconciliations per controller',
      ['controller', 'result'],
    ),
    reconcileErrors: counterIn(
      registry,
      'controller_runtime_reconcile_errors_total',
      'Total number of reconciliation errors per controller',
      ['controller'],
    ),
    reconcileTime: histogramIn(
      registry,
      'controller_runtime_reconcile_time_seconds',
      'Length of time per reconciliation per controller',
      ['controller'],
      RECONCILE_BUCKETS,
    ),
    activeWorkers: gaugeIn(
      registry,
      'controller_runtime_active_workers',
      'Number of currently used workers per controller',
      ['controller'],
    ),
    maxConcurrentReconciles: gaugeIn(
      registry,
      'controller_runtime_max_concurrent_reconciles',
      'Maximum number of concurrent reconciles per controller',
      ['controller'],
    ),
  };
  for (const result of RECONCILE_OUTCOMES) metrics.reconcileTotal.inc({ controller, result }, 0);
  metrics.reconcileErrors.inc({ controller }, 0);
  metrics.reconcileTime.zero({ controller });
  metrics.activeWorkers.set({ controller }, 0);
  return metrics;
}
