// Deletion is processed later and never confirmed: the client queries again. These ask the run
// query route which of the requested traces still exist, at bulk priority (the route has its own
// rate row, 15 per 10 s per key, which the shared budget paces).
import type { ControlPlaneError, Result } from '../controlplane/client/errors.js';
import { batchesOf } from './id-batches.js';
import { metadataFilter } from './metadata-filter.js';
import type { Metadata, PlatformDataClient } from './platform-data-client.js';

/**
 * Ids per run query. Survivors are few once the job ran, so one request usually answers for a
 * thousand ids (the route's rate row is only 15 per 10 s); a full page is followed by its cursor.
 */
const IDS_PER_QUERY = 1000;
const PAGE = 100;

export type Survivors = { ok: true; value: string[] } | { ok: false; error: ControlPlaneError };

/** The trace ids of `traceIds` (root run ids) still found in the session. */
export async function findSurvivingTraces(
  client: Pick<PlatformDataClient, 'queryRuns'>,
  sessionId: string,
  traceIds: AsyncIterable<string> | Iterable<string>,
  signal?: AbortSignal,
): Promise<Survivors> {
  const survivors: string[] = [];
  for await (const chunk of batchesOf(traceIds, IDS_PER_QUERY)) {
    let cursor: string | undefined;
    do {
      const page = await client.queryRuns(
        {
          sessionIds: [sessionId],
          ids: chunk,
          isRoot: true,
          limit: PAGE,
          ...(cursor === undefined ? {} : { cursor }),
        },
        { priority: 'bulk', ...(signal === undefined ? {} : { signal }) },
      );
      if (!page.ok) return page;
      for (const run of page.value.runs) survivors.push(run.trace_id ?? run.id);
      cursor = page.value.cursors?.next ?? undefined;
    } while (cursor !== undefined);
  }
  return { ok: true, value: survivors };
}

/** Up to `limit` trace ids, workspace-wide, of traces that still have ANY of the pairs. */
export async function findTracesByMetadata(
  client: Pick<PlatformDataClient, 'queryRuns'>,
  metadata: Metadata,
  limit = 100,
  signal?: AbortSignal,
): Promise<Result<string[]>> {
  const page = await client.queryRuns(
    { filter: metadataFilter(metadata), isRoot: true, limit },
    { priority: 'bulk', ...(signal === undefined ? {} : { signal }) },
  );
  return page.ok ? { ok: true, value: page.value.runs.map((run) => run.trace_id ?? run.id) } : page;
}
