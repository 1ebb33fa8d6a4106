// Submits a trace deletion of any size: batches of at most 1000 ids, one request each, in
// order, at bulk priority in the shared budget. Progress is reported after each accepted batch,
// so a caller that records the batch index can resume after a crash: batches before
// `startAtBatch` are skipped (read, not sent), so no id is sent twice and none is skipped.
import type { ControlPlaneError, Result } from '../controlplane/client/errors.js';
import { batchesOf } from './id-batches.js';
import type { PlatformDataClient } from './platform-data-client.js';
import { MAX_IDS_PER_DELETE } from './routes.js';

export interface TraceDeletionRequest {
  sessionId: string;
  traceIds: AsyncIterable<string> | Iterable<string>;
  /** Batches already accepted in an earlier attempt (default 0). */
  startAtBatch?: number;
  /** Called after each accepted batch with the count of batches accepted so far and its ids' count. */
  onBatchAccepted?: (batchesAccepted: number, idsInBatch: number) => void | Promise<void>;
  signal?: AbortSignal;
  /** Ids per request, 1..1000 (default 1000, the spec's limit). */
  batchSize?: number;
}

export interface TraceDeletionProgress {
  batchesAccepted: number;
  idsAccepted: number;
}

export type TraceDeletionOutcome =
  | { ok: true; value: TraceDeletionProgress }
  | { ok: false; error: ControlPlaneError; progress: TraceDeletionProgress };

export async function submitTraceDeletion(
  client: Pick<PlatformDataClient, 'deleteTraces'>,
  request: TraceDeletionRequest,
): Promise<TraceDeletionOutcome> {
  const batchSize = request.batchSize ?? MAX_IDS_PER_DELETE;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_IDS_PER_DELETE) {
    throw new Error(`batchSize must be an integer from 1 to ${MAX_IDS_PER_DELETE} (got ${batchSize})`);
  }
  const startAt = request.startAtBatch ?? 0;
  const progress: TraceDeletionProgress = { batchesAccepted: startAt, idsAccepted: 0 };
  let index = 0;
  for await (const batch of batchesOf(request.traceIds, batchSize)) {
    index += 1;
    if (index <= startAt) continue;
    const result: Result<void> = await client.deleteTraces(request.sessionId, batch, {
      priority: 'bulk',
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    if (!result.ok) return { ok: false, error: result.error, progress };
    progress.batchesAccepted = index;
    progress.idsAccepted += batch.length;
    await request.onBatchAccepted?.(index, batch.length);
  }
  return { ok: true, value: progress };
}
