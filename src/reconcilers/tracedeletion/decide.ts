// What a TraceDeletion needs next, from its spec, its status and the time alone (pure).
import type { TraceDeletionSpec, TraceDeletionStatus } from '../../api/deletion/index.js';

export type TraceDeletionStep =
  | { kind: 'done' }
  /** Count what the deletion would touch and report it; never send a delete. */
  | { kind: 'dryRun' }
  /** `countFirst`: count the metadata's matches against maxMatches before the request is sent. */
  | { kind: 'submit'; startAtBatch: number; countFirst: boolean }
  | { kind: 'wait'; ms: number }
  | { kind: 'verify'; pastDeadline: boolean };

export function decideTraceDeletion(
  spec: Pick<TraceDeletionSpec, 'dryRun' | 'maxMatches' | 'metadata'>,
  status: TraceDeletionStatus | undefined,
  now: number,
  verifyDeadlineMs: number,
): TraceDeletionStep {
  const phase = status?.phase ?? 'Pending';
  if (phase === 'Completed' || phase === 'Failed') return { kind: 'done' };
  // The spec is immutable and says what the object may do; a status (stale, or written by
  // someone holding the status subresource) never turns a dry run into a deletion.
  if (spec.dryRun === true) return { kind: 'dryRun' };
  if (phase === 'Pending' || phase === 'Submitting') {
    const startAtBatch = status?.batchesSent ?? 0;
    // The id forms count their ids as they read them; only the metadata form asks the platform.
    // A request recorded as accepted was counted before it was sent.
    const countFirst = spec.metadata !== undefined && spec.maxMatches !== undefined && startAtBatch === 0;
    return { kind: 'submit', startAtBatch, countFirst };
  }
  const nextCheck = status?.nextCheckAt === undefined ? now : Date.parse(status.nextCheckAt);
  if (nextCheck > now) return { kind: 'wait', ms: nextCheck - now };
  const submitted = status?.submittedAt === undefined ? now : Date.parse(status.submittedAt);
  return { kind: 'verify', pastDeadline: now - submitted >= verifyDeadlineMs };
}
