// What an ExampleDeletion needs next, from its spec and status alone (pure).
import type { ExampleDeletionSpec, ExampleDeletionStatus } from '../../api/deletion/index.js';

export type ExampleDeletionStep =
  | { kind: 'done' }
  /** Count what the deletion would touch and report it; never send a delete. */
  | { kind: 'dryRun' }
  | { kind: 'submit'; startAtBatch: number }
  | { kind: 'verify' };

export function decideExampleDeletion(
  spec: Pick<ExampleDeletionSpec, 'exampleIds' | 'dryRun'>,
  status: ExampleDeletionStatus | undefined,
): ExampleDeletionStep {
  const phase = status?.phase ?? 'Pending';
  if (phase === 'Completed' || phase === 'Failed') return { kind: 'done' };
  // The spec is immutable and says what the object may do; a status (stale, or written by
  // someone holding the status subresource) never turns a dry run into a deletion.
  if (spec.dryRun === true) return { kind: 'dryRun' };
  if (phase === 'Verifying') return { kind: 'verify' };
  // The ids form resumes after the recorded batch; the search form searches again, and no
  // longer finds what an earlier attempt deleted, so its batches start afresh.
  return { kind: 'submit', startAtBatch: spec.exampleIds === undefined ? 0 : (status?.batchesSent ?? 0) };
}
