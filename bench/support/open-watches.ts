// Watches of AgentDeployments held open beside writes (bench:kube-emulator's timed ones, the
// warm-up's), read to the end as an informer reads them: the fan-out of each write to them is
// part of its cost.
import type { KubeClient } from '../../src/runtime/kube/client.js';
import { AGENT_DEPLOYMENTS } from './agent-deployments.js';
import { BENCH_NAMESPACE } from './emulators.js';

export interface OpenWatches {
  /** Waits until every watch has seen `target` events (bookmarks not counted). */
  waitForEvents(target: number): Promise<void>;
  close(): Promise<void>;
}

/** Opens `count` watches of `namespace` from the store's current version (a watch opened late would replay). */
export async function openWatches(
  kube: KubeClient,
  count: number,
  namespace: string = BENCH_NAMESPACE,
): Promise<OpenWatches> {
  const abort = new AbortController();
  const { resourceVersion } = await kube.list(AGENT_DEPLOYMENTS, { namespace, limit: 1 });
  const opened = await Promise.all(
    Array.from({ length: count }, () =>
      kube.watch(AGENT_DEPLOYMENTS, { namespace, resourceVersion, signal: abort.signal }),
    ),
  );
  const seen = opened.map(() => 0);
  const reading = opened.map(async (events, i) => {
    try {
      for await (const event of events) {
        if (event.type !== 'BOOKMARK') seen[i] = (seen[i] ?? 0) + 1;
      }
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    }
  });
  return {
    waitForEvents: async (target) => {
      const deadline = performance.now() + 60_000;
      while (seen.some((count) => count < target)) {
        if (performance.now() > deadline)
          throw new Error(`the watches saw ${seen.join(', ')} of ${target} events`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: async () => {
      abort.abort();
      await Promise.all(reading);
    },
  };
}
