// Watches of AgentDeployments held open beside the writes bench:kube-emulator times, read to
// the end as an informer reads them: the fan-out of each write to them is part of its cost.
import type { KubeClient } from '../../src/runtime/kube/client.js';
import { AGENT_DEPLOYMENTS } from '../support/agent-deployments.js';
import { BENCH_NAMESPACE } from '../support/emulators.js';

export interface OpenWatches {
  /** Waits until every watch has seen `target` events (bookmarks not counted). */
  waitForEvents(target: number): Promise<void>;
  close(): Promise<void>;
}

/** Opens `count` watches from the store's current version (a watch opened late would replay). */
export async function openWatches(kube: KubeClient, count: number): Promise<OpenWatches> {
  const abort = new AbortController();
  const { resourceVersion } = await kube.list(AGENT_DEPLOYMENTS, { namespace: BENCH_NAMESPACE, limit: 1 });
  const opened = await Promise.all(
    Array.from({ length: count }, () =>
      kube.watch(AGENT_DEPLOYMENTS, { namespace: BENCH_NAMESPACE, resourceVersion, signal: abort.signal }),
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
