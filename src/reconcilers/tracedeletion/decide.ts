// What a TraceDeletion needs next, from its status and the time alone (pure).
import type { TraceDeletionStatus } from '../../api/deletion/index.js';

export type TraceDeletionStep =
  | { kind: 'done' }
  | { kind: 'submit'; startAtBatch: number }
  | { kind: 'wait'; ms: number }
  | { kind: 'verify'; pastDeadline: boolean };

export function decideTraceDeletion(
  status: TraceDeletionStatus | undefined,
  now: number,
  verifyDeadlineMs: number,
): TraceDeletionStep {
  const phase = status?.phase ?? 'Pending';
  if (phase === 'Completed' || phase === 'Failed') return { kind: 'done' };
  if (phase === 'Pending' || phase === 'Submitting')
    return { kind: 'submit', startAtBatch: status?.batchesSent ?? 0 };
  const nextCheck = status?.nextCheckAt === undefined ? now : Date.parse(status.nextCheckAt);
  if (nextCheck > now) return { kind: 'wait', ms: nextCheck - now };
  const submitted = status?.submittedAt === undefined ? now : Date.parse(status.submittedAt);
  return { kind: 'verify', pastDeadline: now - submitted >= verifyDeadlineMs };
}
