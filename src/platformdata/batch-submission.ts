// Sends ids of any number in batches, one request per batch, and reports progress as batches are
// accepted, in order. A caller that records the batch index can resume after a crash: batches
// before `startAtBatch` are read and skipped. With the default of one request in flight no id is
// sent twice and none is skipped. More in flight hides network latency (the budget still paces
// the rate), at a price on resume: batches accepted beyond the recorded index are sent again
// (harmless for a delete, but a repeat).
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
  /** Requests in flight at once (default 1). Memory holds at most this many batches. */
  concurrency?: number;
}

export interface BatchProgress {
  batchesAccepted: number;
  /** Ids accepted by this call (batches skipped on resume not counted). */
  idsAccepted: number;
}

export type BatchOutcome =
  { ok: true; value: BatchProgress } | { ok: false; error: ControlPlaneError; progress: BatchProgress };

interface Settled {
  index: number;
  size: number;
  result: Result<unknown>;
}

export async function submitInBatches(
  submission: BatchSubmission,
  send: (batch: string[], signal: AbortSignal | undefined) => Promise<Result<unknown>>,
): Promise<BatchOutcome> {
  const batchSize = submission.batchSize ?? MAX_IDS_PER_DELETE;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_IDS_PER_DELETE) {
    throw new Error(`batchSize must be an integer from 1 to ${MAX_IDS_PER_DELETE} (got ${batchSize})`);
  }
  const concurrency = submission.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new Error(`concurrency must be an integer >= 1 (got ${concurrency})`);
  }
  const startAt = submission.startAtBatch ?? 0;
  const progress: BatchProgress = { batchesAccepted: startAt, idsAccepted: 0 };
  const inFlight = new Map<number, Promise<Settled>>();
  // Accepted out of order, waiting for the batches before them: index -> size.
  const accepted = new Map<number, number>();
  const batches = batchesOf(submission.ids, batchSize)[Symbol.asyncIterator]();
  let read = 0;
  let exhausted = false;
  let failure: ControlPlaneError | undefined;
  while (failure === undefined) {
    while (!exhausted && inFlight.size < concurrency) {
      const next = await batches.next();
      if (next.done === true) {
        exhausted = true;
        break;
      }
      read += 1;
      if (read <= startAt) continue;
      const index = read;
      const batch = next.value;
      inFlight.set(
        index,
        send(batch, submission.signal).then((result) => ({ index, size: batch.length, result })),
      );
    }
    if (inFlight.size === 0) break;
    const settled = await Promise.race(inFlight.values());
    inFlight.delete(settled.index);
    if (!settled.result.ok) failure = settled.result.error;
    else accepted.set(settled.index, settled.size);
    await reportInOrder(progress, accepted, submission.onBatchAccepted);
  }
  if (failure === undefined) return { ok: true, value: progress };
  // Let the requests already sent finish, so that what they achieved is reported.
  for (const settled of await Promise.all(inFlight.values())) {
    if (settled.result.ok) accepted.set(settled.index, settled.size);
  }
  await reportInOrder(progress, accepted, submission.onBatchAccepted);
  return { ok: false, error: failure, progress };
}

/** Moves progress over every accepted batch that directly follows it. */
async function reportInOrder(
  progress: BatchProgress,
  accepted: Map<number, number>,
  onBatchAccepted: BatchSubmission['onBatchAccepted'],
): Promise<void> {
  for (;;) {
    const next = progress.batchesAccepted + 1;
    const size = accepted.get(next);
    if (size === undefined) return;
    accepted.delete(next);
    progress.batchesAccepted = next;
    progress.idsAccepted += size;
    await onBatchAccepted?.(next, size);
  }
}
