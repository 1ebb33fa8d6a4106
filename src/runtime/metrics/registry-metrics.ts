// Several queues, controllers or electors share one prom-client Registry, and a metric name
// may be registered only once per registry; these helpers return the existing family when a
// second component asks for it. The registry is always passed in, never the global default,
// so that tests and several managers in one process do not collide.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

function existing<T>(registry: Registry, name: string, kind: new (...args: never[]) => T): T | undefined {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return undefined;
  if (!(metric instanceof kind)) {
    throw new Error(`metric ${name} is already registered with another type`);
  }
  return metric;
}

export function counterIn<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
): Counter<L> {
  return (
    (existing(registry, name, Counter) as Counter<L> | undefined) ??
    new Counter<L>({ name, help, labelNames, registers: [registry] })
  );
}

export function gaugeIn<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  collect?: (this: Gauge<L>) => void,
): Gauge<L> {
  const found = existing(registry, name, Gauge) as Gauge<L> | undefined;
  if (found) return found;
  return collect
    ? new Gauge<L>({ name, help, labelNames, registers: [registry], collect })
    : new Gauge<L>({ name, help, labelNames, registers: [registry] });
}

export function histogramIn<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  buckets: number[],
): Histogram<L> {
  return (
    (existing(registry, name, Histogram) as Histogram<L> | undefined) ??
    new Histogram<L>({ name, help, labelNames, buckets, registers: [registry] })
  );
}

/** controller-runtime's work-duration buckets: 1 µs .. ~10 s, times 10. */
export const WORKQUEUE_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10];
/** controller-runtime's reconcile-time buckets (seconds). */
export const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5,
  1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
