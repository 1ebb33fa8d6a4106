// Counting what a trace deletion by metadata would touch, before it is sent: the root runs that
// have ANY of the pairs, workspace-wide, through the run query the verification uses (the
// route's rate row is 15 per 10 s per key, which the shared budget paces at bulk priority).
// Counting stops at the bound it is given: no page is asked for beyond it.
import type { Result } from '../controlplane/client/errors.js';
import { metadataFilter } from './metadata-filter.js';
import type { Metadata, PlatformDataClient } from './platform-data-client.js';

const PAGE = 100;

/** How many traces have ANY of the pairs, up to `atMost`. */
export async function countTracesByMetadata(
  client: Pick<PlatformDataClient, 'queryRuns'>,
  metadata: Metadata,
  atMost: number,
  signal?: AbortSignal,
): Promise<Result<number>> {
  const filter = metadataFilter(metadata);
  let counted = 0;
  let cursor: string | undefined;
  do {
    const page = await client.queryRuns(
      {
        filter,
        isRoot: true,
        limit: Math.min(PAGE, atMost - counted),
        ...(cursor === undefined ? {} : { cursor }),
      },
      { priority: 'bulk', ...(signal === undefined ? {} : { signal }) },
    );
    if (!page.ok) return page;
    counted += page.value.runs.length;
    cursor = page.value.cursors?.next ?? undefined;
  } while (cursor !== undefined && counted < atMost);
  return { ok: true, value: Math.min(counted, atMost) };
}
