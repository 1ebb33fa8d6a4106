// Per-connection metrics, labelled by the connection's kind, namespace and name (never by
// anything derived from its credential).
import { Counter, Gauge, type Registry } from 'prom-client';

export interface ConnectionLabels {
  kind: string;
  namespace: string;
  name: string;
}

export interface ConnectionMetrics {
  probed(
    labels: ConnectionLabels,
    result: 'ok' | 'refused' | 'unavailable' | 'throttled' | 'unreachable',
  ): void;
  state(
    labels: ConnectionLabels,
    ready: boolean,
    reachable: boolean,
    budgetAvailable: number | undefined,
  ): void;
  forget(labels: ConnectionLabels): void;
}

export const noopConnectionMetrics: ConnectionMetrics = {
  probed: () => undefined,
  state: () => undefined,
  forget: () => undefined,
};

export function bindConnectionMetrics(registry: Registry): ConnectionMetrics {
  const labelNames = ['kind', 'namespace', 'name'] as const;
  const probes = new Counter({
    name: 'agent_operator_connection_probes_total',
    help: 'Probes of platform connections, by outcome.',
    labelNames: [...labelNames, 'result'],
    registers: [registry],
  });
  const ready = new Gauge({
    name: 'agent_operator_connection_ready',
    help: '1 when the connection credential authenticates, else 0.',
    labelNames,
    registers: [registry],
  });
  const reachable = new Gauge({
    name: 'agent_operator_connection_reachable',
    help: '1 when the platform API (and the private domain, when set) answers /ok, else 0.',
    labelNames,
    registers: [registry],
  });
  const budget = new Gauge({
    name: 'agent_operator_connection_budget_available_ratio',
    help: "Share of the connection's rate budget free at its last probe.",
    labelNames,
    registers: [registry],
  });
  return {
    probed: (labels, result) => probes.inc({ ...labels, result }),
    state: (labels, isReady, isReachable, available) => {
      ready.set(labels, isReady ? 1 : 0);
      reachable.set(labels, isReachable ? 1 : 0);
      if (available !== undefined) budget.set(labels, available);
    },
    forget: (labels) => {
      ready.remove(labels);
      reachable.remove(labels);
      budget.remove(labels);
    },
  };
}
