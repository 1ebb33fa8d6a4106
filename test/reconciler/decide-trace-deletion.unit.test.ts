// The TraceDeletion decision, row by row: each case names the situation, the reason the step is
// right, and the step. Spec, status and the time in, one step out; no call is made to decide.
import { describe, expect, it } from 'vitest';
import type { TraceDeletionSpec, TraceDeletionStatus } from '../../src/api/deletion/index.js';
import { decideTraceDeletion, type TraceDeletionStep } from '../../src/reconcilers/tracedeletion/decide.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const HOUR = 60 * 60_000;
const DEADLINE = 14 * 24 * HOUR;
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();

const BY_IDS: TraceDeletionSpec = {
  sessionId: '11111111-1111-4111-8111-111111111111',
  traceIds: ['22222222-2222-4222-8222-222222222222'],
};
const BY_METADATA: TraceDeletionSpec = { metadata: { user_id: 'u-1' } };

interface Row {
  name: string;
  reason: string;
  spec?: TraceDeletionSpec;
  status: TraceDeletionStatus | undefined;
  want: TraceDeletionStep;
}

const rows: Row[] = [
  {
    name: 'a new object',
    reason: 'nothing was sent yet: submission starts at the first batch',
    status: undefined,
    want: { kind: 'submit', startAtBatch: 0, countFirst: false },
  },
  {
    name: 'Pending, blocked before (a connection, a ConfigMap)',
    reason: 'a blocked deletion tries again from where it is',
    status: { phase: 'Pending' },
    want: { kind: 'submit', startAtBatch: 0, countFirst: false },
  },
  {
    name: 'Submitting with two batches recorded',
    reason: 'resume after the recorded batch: none sent twice, none skipped',
    status: { phase: 'Submitting', batchesSent: 2, batchesTotal: 5 },
    want: { kind: 'submit', startAtBatch: 2, countFirst: false },
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
  // ---- maxMatches ----
  {
    name: 'a new metadata deletion with maxMatches',
    reason: 'the matches are counted before the one workspace-wide request is sent',
    spec: { ...BY_METADATA, maxMatches: 100 },
    status: undefined,
    want: { kind: 'submit', startAtBatch: 0, countFirst: true },
  },
  {
    name: 'a metadata deletion with maxMatches whose request is recorded as accepted',
    reason: 'it was counted before it was sent; the traces still there are being deleted, not new matches',
    spec: { ...BY_METADATA, maxMatches: 100 },
    status: { phase: 'Submitting', batchesSent: 1, batchesTotal: 1 },
    want: { kind: 'submit', startAtBatch: 1, countFirst: false },
  },
  {
    name: 'an id deletion with maxMatches',
    reason: 'the ids are their own count: no query, the bound is checked against them when they are read',
    spec: { ...BY_IDS, maxMatches: 100 },
    status: undefined,
    want: { kind: 'submit', startAtBatch: 0, countFirst: false },
  },
  // ---- dryRun ----
  {
    name: 'a new dry run',
    reason: 'count and report: a dry run never sends a delete',
    spec: { ...BY_METADATA, dryRun: true },
    status: undefined,
    want: { kind: 'dryRun' },
  },
  {
    name: 'a dry run whose status says Submitting with a batch recorded (a forged or stale status)',
    reason: 'the spec says dry run and the spec is immutable: nothing is sent, whatever the status says',
    spec: { ...BY_IDS, dryRun: true },
    status: { phase: 'Submitting', batchesSent: 1, batchesTotal: 2 },
    want: { kind: 'dryRun' },
  },
  {
    name: 'a dry run whose status says Submitted',
    reason: 'nothing was submitted by a dry run: count again rather than verify a deletion that never was',
    spec: { ...BY_METADATA, dryRun: true },
    status: { phase: 'Submitted', submittedAt: at(-HOUR), nextCheckAt: at(-1) },
    want: { kind: 'dryRun' },
  },
  {
    name: 'a dry run that Completed',
    reason: 'Job-like: its count is reported once',
    spec: { ...BY_METADATA, dryRun: true },
    status: { phase: 'Completed' },
    want: { kind: 'done' },
  },
  // ---- finished ----
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
  it.each(rows)('$name: $reason', ({ spec = BY_IDS, status, want }) => {
    expect(decideTraceDeletion(spec, status, NOW, DEADLINE)).toEqual(want);
  });

  it('is pure: the same inputs give the same step', () => {
    for (const { spec = BY_IDS, status } of rows) {
      expect(decideTraceDeletion(spec, status, NOW, DEADLINE)).toEqual(
        decideTraceDeletion(spec, status, NOW, DEADLINE),
      );
    }
  });

  it('never submits a dry run, whatever its status', () => {
    for (const { status } of rows) {
      const step = decideTraceDeletion({ ...BY_METADATA, dryRun: true }, status, NOW, DEADLINE);
      expect(['dryRun', 'done']).toContain(step.kind);
    }
  });
});
