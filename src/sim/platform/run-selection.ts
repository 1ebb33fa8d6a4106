// The run filtering both run query versions share: by sessions, run ids, trace, root-ness, a
// time window and a filter expression, then one page from an offset cursor.
import { HttpError } from '../http/http-error.js';
import { compileRunFilter } from './run-filter.js';
import type { RunRecord } from './trace-store.js';

export interface RunCriteria {
  sessionIds?: readonly string[] | null;
  ids?: readonly string[] | null;
  traceId?: string | null;
  isRoot?: boolean | null;
  filter?: string | null;
  /** Inclusive bounds on start_time (ms). */
  minStart?: number;
  maxStart?: number;
}

export interface RunPage {
  runs: RunRecord[];
  /** The cursor of the next page, or null on the last one. */
  next: string | null;
}

function nonEmptySet(values: readonly string[] | null | undefined): Set<string> | undefined {
  return values == null || values.length === 0 ? undefined : new Set(values.map((v) => v.toLowerCase()));
}

export function decodeCursor(cursor: string | null | undefined): number {
  if (cursor == null || cursor === '') return 0;
  if (!/^\d+$/.test(cursor)) throw new HttpError(400, { detail: 'Invalid cursor' });
  return Number(cursor);
}

export function selectRuns(
  runs: Iterable<RunRecord>,
  criteria: RunCriteria,
  cursor: string | null | undefined,
  limit: number,
): RunPage {
  const predicate = criteria.filter == null ? undefined : compileRunFilter(criteria.filter);
  const sessions = nonEmptySet(criteria.sessionIds);
  const ids = nonEmptySet(criteria.ids);
  const offset = decodeCursor(cursor);
  const page: RunRecord[] = [];
  let matched = 0;
  for (const run of runs) {
    if (sessions !== undefined && !sessions.has(run.session_id)) continue;
    if (ids !== undefined && !ids.has(run.id)) continue;
    if (criteria.traceId != null && run.trace_id !== criteria.traceId.toLowerCase()) continue;
    if (criteria.isRoot != null && (run.parent_run_id === null) !== criteria.isRoot) continue;
    const start = Date.parse(run.start_time);
    if (criteria.minStart !== undefined && start < criteria.minStart) continue;
    if (criteria.maxStart !== undefined && start > criteria.maxStart) continue;
    if (predicate !== undefined && !predicate(run)) continue;
    matched += 1;
    if (matched <= offset) continue;
    if (page.length === limit) return { runs: page, next: String(offset + limit) };
    page.push(run);
  }
  return { runs: page, next: null };
}
