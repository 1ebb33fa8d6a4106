// The ExampleDeletion decision, row by row: each case names the situation, the reason the step
// is right, and the step. Spec and status in, one step out; no call is made to decide.
import { describe, expect, it } from 'vitest';
import type { ExampleDeletionSpec, ExampleDeletionStatus } from '../../src/api/deletion/index.js';
import {
  decideExampleDeletion,
  type ExampleDeletionStep,
} from '../../src/reconcilers/exampledeletion/decide.js';
import { decideTable, type DecideRow } from '../support/decide-table.js';

const IDS: ExampleDeletionSpec = {
  exampleIds: ['11111111-1111-4111-8111-111111111111'],
  hardDelete: false,
};
const SEARCH: ExampleDeletionSpec = { search: { metadata: { eval_run: 'q3' } }, hardDelete: true };

interface Given {
  spec: ExampleDeletionSpec;
  status: ExampleDeletionStatus | undefined;
}
type Row = DecideRow<Given, ExampleDeletionStep, ExampleDeletionStep>;

const rows: Row[] = [
  {
    name: 'a new ids deletion',
    reason: 'nothing was sent yet: submission starts at the first batch',
    given: { spec: IDS, status: undefined },
    expect: { kind: 'submit', startAtBatch: 0 },
  },
  {
    name: 'an ids deletion Submitting with three batches recorded',
    reason: 'resume after the recorded batch: none sent twice, none skipped',
    given: { spec: IDS, status: { phase: 'Submitting', batchesSent: 3, batchesTotal: 8 } },
    expect: { kind: 'submit', startAtBatch: 3 },
  },
  {
    name: 'a search deletion Submitting with three batches recorded',
    reason: 'the search runs again and no longer finds what was deleted: its batches start afresh',
    given: { spec: SEARCH, status: { phase: 'Submitting', batchesSent: 3, batchesTotal: 8 } },
    expect: { kind: 'submit', startAtBatch: 0 },
  },
  {
    name: 'Pending after a blocked attempt',
    reason: 'a blocked deletion tries again from the start',
    given: { spec: SEARCH, status: { phase: 'Pending' } },
    expect: { kind: 'submit', startAtBatch: 0 },
  },
  {
    name: 'Verifying',
    reason: 'every batch was accepted: verify (example deletion takes effect at once)',
    given: { spec: SEARCH, status: { phase: 'Verifying', batchesSent: 1 } },
    expect: { kind: 'verify' },
  },
  {
    name: 'a new dry run',
    reason: 'count and report: a dry run never sends a delete',
    given: { spec: { ...SEARCH, dryRun: true }, status: undefined },
    expect: { kind: 'dryRun' },
  },
  {
    name: 'a dry run whose status says Submitting with a batch recorded (a forged or stale status)',
    reason: 'the spec says dry run and the spec is immutable: nothing is sent, whatever the status says',
    given: { spec: { ...IDS, dryRun: true }, status: { phase: 'Submitting', batchesSent: 1 } },
    expect: { kind: 'dryRun' },
  },
  {
    name: 'a dry run whose status says Verifying',
    reason: 'nothing was submitted by a dry run: count again rather than verify a deletion that never was',
    given: { spec: { ...SEARCH, dryRun: true }, status: { phase: 'Verifying' } },
    expect: { kind: 'dryRun' },
  },
  {
    name: 'a dry run that Completed',
    reason: 'Job-like: its count is reported once',
    given: { spec: { ...IDS, dryRun: true }, status: { phase: 'Completed' } },
    expect: { kind: 'done' },
  },
  {
    name: 'Completed',
    reason: 'Job-like: a finished deletion is never looked at again',
    given: { spec: IDS, status: { phase: 'Completed' } },
    expect: { kind: 'done' },
  },
  {
    name: 'Failed',
    reason: 'Job-like: create a new object to try again',
    given: { spec: SEARCH, status: { phase: 'Failed' } },
    expect: { kind: 'done' },
  },
];

decideTable('decideExampleDeletion', ({ spec, status }: Given) => decideExampleDeletion(spec, status), rows, {
  match: 'equal',
  covers: { all: ['done', 'dryRun', 'submit', 'verify'], of: (_given, step) => step.kind },
});

describe('decideExampleDeletion', () => {
  it('never submits a dry run, whatever its status', () => {
    for (const { given } of rows) {
      expect(['dryRun', 'done']).toContain(
        decideExampleDeletion({ ...SEARCH, dryRun: true }, given.status).kind,
      );
    }
  });
});
