// The `run` process's heap settle (src/runtime/heap-settle.ts): on when Node exposes `gc`
// (--expose-gc, which the image's entrypoint passes), off otherwise. Its collections compact
// (compacting-collection.ts). One per process, so it is started by `run`, not by each
// operator a test or the demo starts in one process.
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { systemClock } from '../runtime/clock.js';
import { HeapSettler, type OldSpace } from '../runtime/heap-settle.js';
import { RUNNING_V8_MAJOR, compactingCollection, type ExposedGc } from './compacting-collection.js';
import { PooledHeap } from './pooled-heap.js';

function oldSpace(): OldSpace {
  const space = getHeapSpaceStatistics().find((entry) => entry.space_name === 'old_space');
  return { committedBytes: space?.physical_space_size ?? 0, usedBytes: space?.space_used_size ?? 0 };
}

const mib = (bytes: number): number => Math.round(bytes / 2 ** 20);

/** V8 12 and later pool the pages they free (pooled-heap.ts); earlier ones unmap them. */
const POOLS_FREED_PAGES = RUNNING_V8_MAJOR >= 12;

/**
 * On V8 12 the settle starts only when the heap is 32 MiB and a quarter below its sampled peak,
 * the thresholds it was measured with: its collection pauses the process for up to a second,
 * and the old space's lower thresholds (16 MiB, 15%) were measured on Node 20 only.
 */
const POOLED_HEAP_THRESHOLDS = { minSlackBytes: 32 * 2 ** 20, slackShare: 0.25 };

/** What the settle watches, the collection it runs, and when (the settler's defaults unless set). */
function settleTarget(gc: ExposedGc): {
  oldSpace: () => OldSpace;
  collect: () => void;
  minSlackBytes?: number;
  slackShare?: number;
} {
  const collection = compactingCollection({ gc });
  if (!POOLS_FREED_PAGES) return { oldSpace, collect: collection };
  const heap = new PooledHeap(() => getHeapStatistics().total_physical_size);
  return {
    ...POOLED_HEAP_THRESHOLDS,
    oldSpace: () => heap.footprint(),
    collect: () => {
      collection();
      heap.collected();
    },
  };
}

/** Starts the settle when `gc` is exposed; returns it (to stop), or undefined when it cannot run. */
export function startHeapSettle(logger: Logger, registry: Registry): HeapSettler | undefined {
  const collect = (globalThis as { gc?: unknown }).gc;
  if (typeof collect !== 'function') {
    logger.debug('no heap settle: node runs without --expose-gc');
    return undefined;
  }
  const collections = new Counter({
    name: 'agent_operator_heap_settle_collections_total',
    help: 'Full garbage collections the operator ran to give back the old-space pages a burst left behind.',
    registers: [registry],
  });
  const settler = new HeapSettler({
    ...settleTarget(collect as ExposedGc),
    clock: systemClock,
    onSettled: ({ before, after, passes }) => {
      collections.inc(passes);
      logger.debug(
        {
          collections: passes,
          oldSpaceCommittedMiB: [mib(before.committedBytes), mib(after.committedBytes)],
          oldSpaceUsedMiB: [mib(before.usedBytes), mib(after.usedBytes)],
        },
        'heap settled',
      );
    },
  });
  settler.start();
  return settler;
}
