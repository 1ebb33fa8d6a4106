// Sends ids of any number in batches, one request per batch, in order, and reports progress
// after each accepted batch. A caller that records the batch index can resume after a crash:
// batches before `startAtBatch` are read and skipped, so no id is sent twice and none skipped.
import type { ControlPlaneError, Result } from '../controlplane/client/errors.js';
import { batchesOf } from './id-batches.js';
import { MAX_IDS_PER_DELETE } from './routes.js';

export interface BatchSubmission {
  ids: AsyncIterable<string> | Iterable<string>;
  /** Batches already accepted in an earlier attempt (default 0). */
  startAtBatch?: number;
  /** Called after each accepted batch with the count of batches accepted so far and its ids' count. */
  onBatchAccepted?: (batchesAccepted: number, idsInBatch: number) => void | Promise<void>;
  signal?: AbortSignal;
  /** Ids per request, 1..1000 (default 1000, the spec's limit). */
  batchSize?: number;
}

export interface BatchProgress {
  batchesAccepted: number;
  /** Ids accepted by this call (batches skipped on resume not counted). */
  idsAccepted: number;
}

export type BatchOutcome =
  { ok: true; value: BatchProgress } | { ok: false; error: ControlPlaneError; progress: BatchProgress };

export async function submitInBatches(
  submission: BatchSubmission,
  send: (batch: string[], signal: AbortSignal | undefined) => Promise<Result<unknown>>,
): Promise<BatchOutcome> {
  const batchSize = submission.batchSize ?? MAX_IDS_PER_DELETE;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_IDS_PER_DELETE) {
    throw new Error(`batchSize must be an integer from 1 to ${MAX_IDS_PER_DELETE} (got ${batchSize})`);
  }
  const startAt = submission.startAtBatch ?? 0;
  const progress: BatchProgress = { batchesAccepted: startAt, idsAccepted: 0 };
  let index = 0;
  for await (const batch of batchesOf(submission.ids, batchSize)) {
    index += 1;
    if (index <= startAt) continue;
    const result = await send(batch, submission.signal);
    if (!result.ok) return { ok: false, error: result.error, progress };
    progress.batchesAccepted = index;
    progress.idsAccepted += batch.length;
    await submission.onBatchAccepted?.(index, batch.length);
  }
  return { ok: true, value: progress };
}
