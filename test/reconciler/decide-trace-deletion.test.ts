// The TraceDeletion decision, row by row: each case names the situation, the reason the step is
// right, and the step. Status and the time in, one step out; no call is made to decide.
import { describe, expect, it } from 'vitest';
import type { TraceDeletionStatus } from '../../src/api/deletion/index.js';
import { decideTraceDeletion, type TraceDeletionStep } from '../../src/reconcilers/tracedeletion/decide.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const HOUR = 60 * 60_000;
const DEADLINE = 14 * 24 * HOUR;
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();

interface Row {
  name: string;
  reason: string;
  status: TraceDeletionStatus | undefined;
  want: TraceDeletionStep;
}

const rows: Row[] = [
  {
    name: 'a new object',
    reason: 'nothing was sent yet: submission starts at the first batch',
    status: undefined,
    want: { kind: 'submit', startAtBatch: 0 },
  },
  {
    name: 'Pending, blocked before (a connection, a ConfigMap)',
    reason: 'a blocked deletion tries again from where it is',
    status: { phase: 'Pending' },
    want: { kind: 'submit', startAtBatch: 0 },
  },
  {
    name: 'Submitting with two batches recorded',
    reason: 'resume after the recorded batch: none sent twice, none skipped',
    status: { phase: 'Submitting', batchesSent: 2, batchesTotal: 5 },
    want: { kind: 'submit', startAtBatch: 2 },
  },
  {
    name: 'Submitted, the first check not due yet',
    reason: 'the platform deletes later: wait for the slow schedule, no query now',
    status: { phase: 'Submitted', submittedAt: at(-HOUR), nextCheckAt: at(5 * HOUR) },
    want: { kind: 'wait', ms: 5 * HOUR },
  },
  {
    name: 'Submitted, the check due',
    reason: 'look whether the traces are gone',
    status: { phase: 'Submitted', submittedAt: at(-6 * HOUR), nextCheckAt: at(0) },
    want: { kind: 'verify', pastDeadline: false },
  },
  {
    name: 'Verifying with no nextCheckAt recorded',
    reason: 'a status without a schedule is checked now rather than never',
    status: { phase: 'Verifying', submittedAt: at(-HOUR) },
    want: { kind: 'verify', pastDeadline: false },
  },
  {
    name: 'Verifying, the check due at the deadline',
    reason: 'survivors found now fail the deletion',
    status: { phase: 'Verifying', submittedAt: at(-DEADLINE), nextCheckAt: at(-1) },
    want: { kind: 'verify', pastDeadline: true },
  },
  {
    name: 'Completed',
    reason: 'Job-like: a finished deletion is never looked at again',
    status: { phase: 'Completed' },
    want: { kind: 'done' },
  },
  {
    name: 'Failed',
    reason: 'Job-like: create a new object to try again',
    status: { phase: 'Failed', batchesSent: 1 },
    want: { kind: 'done' },
  },
];

describe('decideTraceDeletion', () => {
  it.each(rows)('$name: $reason', ({ status, want }) => {
    expect(decideTraceDeletion(status, NOW, DEADLINE)).toEqual(want);
  });

  it('is pure: the same inputs give the same step', () => {
    for (const { status } of rows) {
      expect(decideTraceDeletion(status, NOW, DEADLINE)).toEqual(decideTraceDeletion(status, NOW, DEADLINE));
    }
  });
});
