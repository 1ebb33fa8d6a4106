// A trace deletion of any size: batches of at most 1000 ids of one session, at bulk priority in
// the shared budget (see batch-submission.ts for ordering and resume).
import { submitInBatches, type BatchOutcome, type BatchSubmission } from './batch-submission.js';
import type { PlatformDataClient } from './platform-data-client.js';

export interface TraceDeletionRequest extends Omit<BatchSubmission, 'ids'> {
  sessionId: string;
  traceIds: AsyncIterable<string> | Iterable<string>;
}

export function submitTraceDeletion(
  client: Pick<PlatformDataClient, 'deleteTraces'>,
  request: TraceDeletionRequest,
): Promise<BatchOutcome> {
  const { sessionId, traceIds, ...submission } = request;
  return submitInBatches({ ...submission, ids: traceIds }, (batch, signal) =>
    client.deleteTraces(sessionId, batch, { priority: 'bulk', ...(signal === undefined ? {} : { signal }) }),
  );
}
