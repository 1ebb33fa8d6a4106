// The workqueue metrics under the names client-go/controller-runtime publish, so existing
// dashboards work unchanged. The two "in flight" gauges are computed when scraped from each
// live queue, which is what client-go's updateUnfinishedWork loop approximates every 500 ms.
// Every series of a queue exists from the moment the queue does, at 0, as client-go's do:
// otherwise a panel over an idle queue shows "no data", an alert on it can never fire, and
// rate() cannot see the first retry (it needs a sample before it).
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { counterIn, gaugeIn, histogramIn, WORKQUEUE_BUCKETS } from '../metrics/registry-metrics.js';

export interface InFlightProvider {
  readonly name: string;
  /** Seconds of work in progress, summed over keys being processed. */
  unfinishedWorkSeconds(): number;
  /** Seconds the oldest key still being processed has been running. */
  longestRunningProcessorSeconds(): number;
}

const providersByRegistry = new WeakMap<Registry, Set<InFlightProvider>>();

export interface WorkQueueMetrics {
  depth: Gauge<'name'>;
  adds: Counter<'name'>;
  retries: Counter<'name'>;
  queueDuration: Histogram<'name'>;
  workDuration: Histogram<'name'>;
  /** Stops reporting the in-flight gauges for this queue (on shutdown). */
  unregister(): void;
}

export function workQueueMetrics(registry: Registry, provider: InFlightProvider): WorkQueueMetrics {
  let providers = providersByRegistry.get(registry);
  if (!providers) {
    providers = new Set();
    providersByRegistry.set(registry, providers);
  }
  const live = providers;
  live.add(provider);
  gaugeIn(
    registry,
    'workqueue_unfinished_work_seconds',
    'How many seconds of work has been done that is in progress and has not been observed by work_duration.',
    ['name'],
    function collect() {
      for (const p of live) this.set({ name: p.name }, p.unfinishedWorkSeconds());
    },
  );
  gaugeIn(
    registry,
    'workqueue_longest_running_processor_seconds',
    'How many seconds has the longest running processor for workqueue been running.',
    ['name'],
    function collect() {
      for (const p of live) this.set({ name: p.name }, p.longestRunningProcessorSeconds());
    },
  );
  const metrics = {
    depth: gaugeIn(registry, 'workqueue_depth', 'Current depth of workqueue', ['name']),
    adds: counterIn(registry, 'workqueue_adds_total', 'Total number of adds handled by workqueue', ['name']),
    retries: counterIn(registry, 'workqueue_retries_total', 'Total number of retries handled by workqueue', [
      'name',
    ]),
    queueDuration: histogramIn(
      registry,
      'workqueue_queue_duration_seconds',
      'How long in seconds an item stays in workqueue before being requested',
      ['name'],
      WORKQUEUE_BUCKETS,
    ),
    workDuration: histogramIn(
      registry,
      'workqueue_work_duration_seconds',
      'How long in seconds processing an item from workqueue takes.',
      ['name'],
      WORKQUEUE_BUCKETS,
    ),
    unregister: () => {
      live.delete(provider);
    },
  };
  const labels = { name: provider.name };
  metrics.depth.set(labels, 0);
  metrics.adds.inc(labels, 0);
  metrics.retries.inc(labels, 0);
  metrics.queueDuration.zero(labels);
  metrics.workDuration.zero(labels);
  return metrics;
}
