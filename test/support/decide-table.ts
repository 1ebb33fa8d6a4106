// One table harness for every decide function of the operator (AgentDeployment's ladder, the
// connection probe, TraceDeletion, ExampleDeletion, what a failed write means): a row is a
// situation (`name`), why the result is right (`reason`), what is given and what is expected.
// Besides one test per row, the harness checks what makes a table worth having: the function
// is pure, every expectation would fail on another row's result (a row that cannot fail tests
// nothing), and, where the table says which outcomes exist, each is reached by some row.
import { describe, expect, it } from 'vitest';

export interface DecideRow<Given, Expected, Result> {
  /** The situation, as a reader would say it. */
  name: string;
  /** Why the expected result is the right one. */
  reason: string;
  given: Given;
  expect: Expected;
  /** Checks beyond `expect` (a message, an absent field). */
  check?: (result: Result) => void;
}

export interface DecideTableOptions<Given, Result> {
  /** `equal`: the result is exactly `expect`; `partial`: it contains `expect` (toMatchObject). */
  match: 'equal' | 'partial';
  /**
   * The outcomes the function can reach (a rung, a kind) and how to tell a row's outcome:
   * each one must be reached by at least one row, so that a new branch cannot go untested.
   */
  covers?: { all: readonly string[]; of: (given: Given, result: Result) => string };
}

function assertMatches(result: unknown, expected: unknown, match: 'equal' | 'partial'): void {
  if (match === 'equal') expect(result).toEqual(expected);
  else expect(result).toMatchObject(expected as object);
}

function matches(result: unknown, expected: unknown, match: 'equal' | 'partial'): boolean {
  try {
    assertMatches(result, expected, match);
    return true;
  } catch {
    return false;
  }
}

export function decideTable<Given, Result, Expected = Result>(
  title: string,
  decide: (given: Given) => Result,
  rows: ReadonlyArray<DecideRow<Given, Expected, Result>>,
  options: DecideTableOptions<Given, Result>,
): void {
  describe(title, () => {
    it.each(rows)('$name: $reason', (row) => {
      const result = decide(row.given);
      assertMatches(result, row.expect, options.match);
      row.check?.(result);
    });

    it('is pure: the same inputs give the same result', () => {
      for (const { given } of rows) expect(decide(given)).toEqual(decide(given));
    });

    it('has rows that can fail: each expectation rejects the result of some other row', () => {
      const results = rows.map((row) => decide(row.given));
      const blind = rows
        .filter((row) => results.every((result) => matches(result, row.expect, options.match)))
        .map((row) => row.name);
      expect(blind).toEqual([]);
    });

    it('names each row once', () => {
      const names = rows.map((row) => row.name);
      expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
    });

    const covers = options.covers;
    if (covers !== undefined) {
      it(`reaches every outcome (${covers.all.join(', ')}) with some row`, () => {
        const reached = new Set(rows.map((row) => covers.of(row.given, decide(row.given))));
        expect(covers.all.filter((outcome) => !reached.has(outcome))).toEqual([]);
        expect([...reached].filter((outcome) => !covers.all.includes(outcome))).toEqual([]);
      });
    }
  });
}
