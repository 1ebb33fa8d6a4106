// controller-runtime's reconcile metrics, under the names its dashboards and alerts query.
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { counterIn, gaugeIn, histogramIn, RECONCILE_BUCKETS } from '../metrics/registry-metrics.js';

export type ReconcileOutcome = 'success' | 'error' | 'requeue' | 'requeue_after';

export interface ControllerMetrics {
  reconcileTotal: Counter<'controller' | 'result'>;
  reconcileErrors: Counter<'controller'>;
  reconcileTime: Histogram<'controller'>;
  activeWorkers: Gauge<'controller'>;
  maxConcurrentReconciles: Gauge<'controller'>;
}

export function controllerMetrics(registry: Registry): ControllerMetrics {
  return {
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
}
