// Example deletion: find the examples (metadata, ANY pair, created before `asOf`) page by page,
// then delete them in batches of at most 1000, soft or hard, at bulk priority.
import type { Result } from '../controlplane/client/errors.js';
import { submitInBatches, type BatchOutcome, type BatchSubmission } from './batch-submission.js';
import type { FoundExample } from './models.js';
import type { ExampleSearch, PlatformDataClient } from './platform-data-client.js';

const PAGE = 100;

/** The ids the search matches, paging until a short page, or until `atMost` are found. */
export async function matchingExampleIds(
  client: Pick<PlatformDataClient, 'searchExamples'>,
  search: Omit<ExampleSearch, 'offset' | 'limit'>,
  signal?: AbortSignal,
  atMost = Number.POSITIVE_INFINITY,
): Promise<Result<string[]>> {
  const found = await matchingExamples(client, search, signal, atMost);
  return found.ok ? { ok: true, value: found.value.map((example) => example.id) } : found;
}

/**
 * Verification of a search deletion: the examples that match NOW and were created before
 * `createdBefore`. (A search as of the earlier time would show them as they were then,
 * deleted or not.)
 */
export async function remainingExampleIds(
  client: Pick<PlatformDataClient, 'searchExamples'>,
  search: { metadata: ExampleSearch['metadata']; createdBefore: Date; now: Date },
  signal?: AbortSignal,
): Promise<Result<string[]>> {
  const found = await matchingExamples(client, { metadata: search.metadata, asOf: search.now }, signal);
  if (!found.ok) return found;
  const before = search.createdBefore.getTime();
  const remaining = found.value.filter(
    (example) => example.created_at == null || Date.parse(example.created_at) < before,
  );
  return { ok: true, value: remaining.map((example) => example.id) };
}

async function matchingExamples(
  client: Pick<PlatformDataClient, 'searchExamples'>,
  search: Omit<ExampleSearch, 'offset' | 'limit'>,
  signal?: AbortSignal,
  atMost = Number.POSITIVE_INFINITY,
): Promise<Result<FoundExample[]>> {
  const found: FoundExample[] = [];
  while (found.length < atMost) {
    const limit = Math.min(PAGE, atMost - found.length);
    const page = await client.searchExamples(
      { ...search, offset: found.length, limit },
      { priority: 'bulk', ...(signal === undefined ? {} : { signal }) },
    );
    if (!page.ok) return page;
    found.push(...page.value);
    if (page.value.length < limit) break;
  }
  return { ok: true, value: found.slice(0, atMost) };
}

export interface ExampleDeletionRequest extends Omit<BatchSubmission, 'ids'> {
  exampleIds: AsyncIterable<string> | Iterable<string>;
  /** false: tombstone the current version only; true: zero inputs, outputs and metadata in every version. */
  hardDelete: boolean;
}

export function submitExampleDeletion(
  client: Pick<PlatformDataClient, 'deleteExamples'>,
  request: ExampleDeletionRequest,
): Promise<BatchOutcome> {
  const { exampleIds, hardDelete, ...submission } = request;
  return submitInBatches({ ...submission, ids: exampleIds }, (batch, signal) =>
    client.deleteExamples(batch, hardDelete, {
      priority: 'bulk',
      ...(signal === undefined ? {} : { signal }),
    }),
  );
}
