// Metrics of the reconcile path's failures: every failure by errorPolicy's class, and
// whether the control plane answers the batched observation. Readiness (/readyz) is about
// this process's caches, not the control plane's health; these make an outage visible.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Failure } from './ports.js';

export interface ReconcileFailureMetrics {
  reconcileFailed(errorClass: string): void;
  controlPlaneHealth(failure: Failure | undefined): void;
}

const CLASSES = ['Transient', 'Throttled', 'Unauthorized', 'Terminal', 'NotFound', 'Conflict'] as const;

export function bindReconcileFailureMetrics(registry: Registry): ReconcileFailureMetrics {
  const failures = new Counter({
    name: 'agent_operator_reconcile_failures_total',
    help: 'Reconcile failures by error class (errorPolicy label): Transient, Throttled, Unauthorized, Terminal, NotFound, Conflict.',
    labelNames: ['class'],
    registers: [registry],
  });
  for (const errorClass of CLASSES) failures.inc({ class: errorClass }, 0);
  const available = new Gauge({
    name: 'agent_operator_controlplane_available',
    help: '1 while the batched observation of the control plane succeeds; 0 while it fails (unreachable, 5xx, or the API key refused).',
    registers: [registry],
  });
  available.set(1);
  const refusing = new Gauge({
    name: 'agent_operator_controlplane_auth_failing',
    help: '1 while the control plane refuses the API key (401/403) on the batched observation.',
    registers: [registry],
  });
  refusing.set(0);
  return {
    reconcileFailed: (errorClass) => failures.inc({ class: errorClass }),
    controlPlaneHealth: (failure) => {
      available.set(failure === undefined ? 1 : 0);
      refusing.set(failure?.kind === 'Unauthorized' ? 1 : 0);
      if (failure) failures.inc({ class: failure.kind });
    },
  };
}
