// The TraceDeletion decision, row by row: each case names the situation, the reason the step is
// right, and the step. Spec, status and the time in, one step out; no call is made to decide.
import { describe, expect, it } from 'vitest';
import type { TraceDeletionSpec, TraceDeletionStatus } from '../../src/api/deletion/index.js';
import { decideTraceDeletion, type TraceDeletionStep } from '../../src/reconcilers/tracedeletion/decide.js';
import { decideTable, type DecideRow } from '../support/decide-table.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const HOUR = 60 * 60_000;
const DEADLINE = 14 * 24 * HOUR;
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();

const BY_IDS: TraceDeletionSpec = {
  sessionId: '11111111-1111-4111-8111-111111111111',
  traceIds: ['22222222-2222-4222-8222-222222222222'],
};
const BY_METADATA: TraceDeletionSpec = { metadata: { user_id: 'u-1' } };

type Spec = Pick<TraceDeletionSpec, 'dryRun' | 'maxMatches' | 'metadata'>;
interface Given {
  spec: Spec;
  status: TraceDeletionStatus | undefined;
}
type Row = DecideRow<Given, TraceDeletionStep, TraceDeletionStep>;

const rows: Row[] = [
  {
    name: 'a new object',
    reason: 'nothing was sent yet: submission starts at the first batch',
    given: { spec: BY_IDS, status: undefined },
    expect: { kind: 'submit', startAtBatch: 0, countFirst: false },
  },
  {
    name: 'Pending, blocked before (a connection, a ConfigMap)',
    reason: 'a blocked deletion tries again from where it is',
    given: { spec: BY_IDS, status: { phase: 'Pending' } },
    expect: { kind: 'submit', startAtBatch: 0, countFirst: false },
  },
  {
    name: 'Submitting with two batches recorded',
    reason: 'resume after the recorded batch: none sent twice, none skipped',
    given: { spec: BY_IDS, status: { phase: 'Submitting', batchesSent: 2, batchesTotal: 5 } },
    expect: { kind: 'submit', startAtBatch: 2, countFirst: false },
  },
  {
    name: 'Submitted, the first check not due yet',
    reason: 'the platform deletes later: wait for the slow schedule, no query now',
    given: {
      spec: BY_IDS,
      status: { phase: 'Submitted', submittedAt: at(-HOUR), nextCheckAt: at(5 * HOUR) },
    },
    expect: { kind: 'wait', ms: 5 * HOUR },
  },
  {
    name: 'Submitted, the check due',
    reason: 'look whether the traces are gone',
    given: { spec: BY_IDS, status: { phase: 'Submitted', submittedAt: at(-6 * HOUR), nextCheckAt: at(0) } },
    expect: { kind: 'verify', pastDeadline: false },
  },
  {
    name: 'Verifying with no nextCheckAt recorded',
    reason: 'a status without a schedule is checked now rather than never',
    given: { spec: BY_IDS, status: { phase: 'Verifying', submittedAt: at(-HOUR) } },
    expect: { kind: 'verify', pastDeadline: false },
  },
  {
    name: 'Verifying with neither submittedAt nor nextCheckAt recorded',
    reason: 'a status without its dates is checked now, and not taken as past its deadline',
    given: { spec: BY_IDS, status: { phase: 'Verifying' } },
    expect: { kind: 'verify', pastDeadline: false },
  },
  {
    name: 'Verifying, the check due at the deadline',
    reason: 'survivors found now fail the deletion',
    given: { spec: BY_IDS, status: { phase: 'Verifying', submittedAt: at(-DEADLINE), nextCheckAt: at(-1) } },
    expect: { kind: 'verify', pastDeadline: true },
  },
  // ---- maxMatches ----
  {
    name: 'a new metadata deletion with maxMatches',
    reason: 'the matches are counted before the one workspace-wide request is sent',
    given: { spec: { ...BY_METADATA, maxMatches: 100 }, status: undefined },
    expect: { kind: 'submit', startAtBatch: 0, countFirst: true },
  },
  {
    name: 'a metadata deletion with maxMatches whose request is recorded as accepted',
    reason: 'it was counted before it was sent; the traces still there are being deleted, not new matches',
    given: {
      spec: { ...BY_METADATA, maxMatches: 100 },
      status: { phase: 'Submitting', batchesSent: 1, batchesTotal: 1 },
    },
    expect: { kind: 'submit', startAtBatch: 1, countFirst: false },
  },
  {
    name: 'an id deletion with maxMatches',
    reason: 'the ids are their own count: no query, the bound is checked against them when they are read',
    given: { spec: { ...BY_IDS, maxMatches: 100 }, status: undefined },
    expect: { kind: 'submit', startAtBatch: 0, countFirst: false },
  },
  // ---- dryRun ----
  {
    name: 'a new dry run',
    reason: 'count and report: a dry run never sends a delete',
    given: { spec: { ...BY_METADATA, dryRun: true }, status: undefined },
    expect: { kind: 'dryRun' },
  },
  {
    name: 'a dry run whose status says Submitting with a batch recorded (a forged or stale status)',
    reason: 'the spec says dry run and the spec is immutable: nothing is sent, whatever the status says',
    given: {
      spec: { ...BY_IDS, dryRun: true },
      status: { phase: 'Submitting', batchesSent: 1, batchesTotal: 2 },
    },
    expect: { kind: 'dryRun' },
  },
  {
    name: 'a dry run whose status says Submitted',
    reason: 'nothing was submitted by a dry run: count again rather than verify a deletion that never was',
    given: {
      spec: { ...BY_METADATA, dryRun: true },
      status: { phase: 'Submitted', submittedAt: at(-HOUR), nextCheckAt: at(-1) },
    },
    expect: { kind: 'dryRun' },
  },
  {
    name: 'a dry run that Completed',
    reason: 'Job-like: its count is reported once',
    given: { spec: { ...BY_METADATA, dryRun: true }, status: { phase: 'Completed' } },
    expect: { kind: 'done' },
  },
  // ---- finished ----
  {
    name: 'Completed',
    reason: 'Job-like: a finished deletion is never looked at again',
    given: { spec: BY_IDS, status: { phase: 'Completed' } },
    expect: { kind: 'done' },
  },
  {
    name: 'Failed',
    reason: 'Job-like: create a new object to try again',
    given: { spec: BY_IDS, status: { phase: 'Failed', batchesSent: 1 } },
    expect: { kind: 'done' },
  },
];

decideTable(
  'decideTraceDeletion',
  ({ spec, status }: Given) => decideTraceDeletion(spec, status, NOW, DEADLINE),
  rows,
  {
    match: 'equal',
    covers: { all: ['done', 'dryRun', 'submit', 'wait', 'verify'], of: (_given, step) => step.kind },
  },
);

describe('decideTraceDeletion', () => {
  it('never submits a dry run, whatever its status', () => {
    for (const { given } of rows) {
      const step = decideTraceDeletion({ ...BY_METADATA, dryRun: true }, given.status, NOW, DEADLINE);
      expect(['dryRun', 'done']).toContain(step.kind);
    }
  });
});
