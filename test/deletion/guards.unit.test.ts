// What a count means for a deletion, row by row: refused past maxMatches (a dry run too, as the
// real one would be), reported by a dry run, or on to the delete.
import { describe, expect, it } from 'vitest';
import { COUNT_CEILING } from '../../src/api/deletion/index.js';
import type { PhaseState } from '../../src/reconcilers/deletion/conditions.js';
import {
  countBound,
  dryRunOutcome,
  matchesCounted,
  tooManyMatches,
  type Guards,
} from '../../src/reconcilers/deletion/guards.js';

const SUBJECT = 'trace(s) match the metadata';

describe('countBound', () => {
  it('counts one past maxMatches, enough to know it is exceeded; a dry run without it stops at the ceiling', () => {
    expect(countBound({ maxMatches: 100 })).toBe(101);
    expect(countBound({ dryRun: true, maxMatches: 1 })).toBe(2);
    expect(countBound({ dryRun: true })).toBe(COUNT_CEILING);
  });

  it('calls a count that reached its bound a lower bound', () => {
    expect(matchesCounted(101, 101)).toEqual({ count: 101, atLeast: true });
    expect(matchesCounted(100, 101)).toEqual({ count: 100, atLeast: false });
  });
});

const tooMany = (count: string, limit: number): PhaseState => ({
  phase: 'Failed',
  reason: 'TooManyMatches',
  message: `spec.maxMatches: ${count} ${SUBJECT}, more than the limit of ${limit}; nothing was deleted`,
});

interface Row {
  name: string;
  guards: Guards;
  count: number;
  atLeast?: boolean;
  /** The state a deletion ends in (undefined: it goes on and deletes), and a dry run's. */
  deletion: PhaseState | undefined;
  dryRun: PhaseState;
}

const rows: Row[] = [
  {
    name: 'no maxMatches',
    guards: {},
    count: 5_000,
    deletion: undefined,
    dryRun: { phase: 'Completed', reason: 'DryRun', message: `dry run, nothing deleted: 5000 ${SUBJECT}` },
  },
  {
    name: 'exactly maxMatches',
    guards: { maxMatches: 100 },
    count: 100,
    deletion: undefined,
    dryRun: { phase: 'Completed', reason: 'DryRun', message: `dry run, nothing deleted: 100 ${SUBJECT}` },
  },
  {
    name: 'one past maxMatches, counting stopped there',
    guards: { maxMatches: 100 },
    count: 101,
    atLeast: true,
    deletion: tooMany('at least 101', 100),
    dryRun: tooMany('at least 101', 100),
  },
  {
    name: 'an exact count past maxMatches (ids)',
    guards: { maxMatches: 1000 },
    count: 2500,
    deletion: tooMany('2500', 1000),
    dryRun: tooMany('2500', 1000),
  },
  {
    name: 'no maxMatches, the count at the ceiling',
    guards: {},
    count: COUNT_CEILING,
    atLeast: true,
    deletion: undefined,
    dryRun: {
      phase: 'Completed',
      reason: 'DryRun',
      message: `dry run, nothing deleted: at least ${COUNT_CEILING} ${SUBJECT} (counting stops at ${COUNT_CEILING} without spec.maxMatches)`,
    },
  },
  {
    name: 'nothing matches',
    guards: { maxMatches: 1 },
    count: 0,
    deletion: undefined,
    dryRun: { phase: 'Completed', reason: 'DryRun', message: `dry run, nothing deleted: 0 ${SUBJECT}` },
  },
];

describe('tooManyMatches and dryRunOutcome', () => {
  it.each(rows)('$name', ({ guards, count, atLeast = false, deletion, dryRun }) => {
    expect(tooManyMatches(guards, { count, atLeast }, SUBJECT)).toEqual(deletion);
    expect(dryRunOutcome(guards, { count, atLeast }, SUBJECT)).toEqual(dryRun);
  });
});
