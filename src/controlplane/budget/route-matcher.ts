// Which rows of the rate table count a given request. A request consumes one token from every
// row that matches it (the spec does not say which row wins, so the budget honours them all);
// a fallback row counts only what no specific row of its identity counted.
import type { IdentityKey, MatchAlternative, PathPattern, RateRow } from './rate-table.js';

export interface RoutedRequest {
  method: string;
  /** The path the server sees, without query string (a self-hosted prefix included). */
  path: string;
  /** The identities the request presents: the client sends a credential, and always has an IP. */
  identities: ReadonlySet<IdentityKey>;
}

const UUID_SEGMENT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function segmentsOf(path: string): string[] {
  return path.split('/').filter((segment) => segment.length > 0);
}

function indexOfRun(haystack: readonly string[], needle: readonly string[], from: number): boolean {
  return needle.every((segment, i) => haystack[from + i] === segment);
}

export function pathMatches(path: string, pattern: PathPattern): boolean {
  const have = segmentsOf(path);
  const want = segmentsOf(pattern.segments);
  switch (pattern.kind) {
    case 'contains':
      for (let start = 0; start + want.length <= have.length; start += 1) {
        if (indexOfRun(have, want, start)) return true;
      }
      return false;
    case 'endsWith':
      return have.length >= want.length && indexOfRun(have, want, have.length - want.length);
    case 'endsWithUuid': {
      const last = have[have.length - 1];
      const start = have.length - 1 - want.length;
      return last !== undefined && start >= 0 && UUID_SEGMENT.test(last) && indexOfRun(have, want, start);
    }
  }
}

function alternativeMatches(request: RoutedRequest, alternative: MatchAlternative): boolean {
  if (alternative.method !== undefined && alternative.method !== request.method.toUpperCase()) return false;
  if (alternative.path !== undefined && !pathMatches(request.path, alternative.path)) return false;
  return true;
}

function carriesCredential(request: RoutedRequest): boolean {
  return request.identities.has('api-key') || request.identities.has('user-id+ip');
}

/** The rows that count `request`, in table order. */
export function matchingRows(request: RoutedRequest, table: readonly RateRow[]): RateRow[] {
  const presented = table.filter((row) => request.identities.has(row.identity));
  const specific = presented.filter(
    (row) => !row.fallback && row.match.some((alternative) => alternativeMatches(request, alternative)),
  );
  const identitiesCovered = new Set(specific.map((row) => row.identity));
  const fallbacks = presented.filter(
    (row) =>
      row.fallback === true &&
      !identitiesCovered.has(row.identity) &&
      !(row.onlyWithoutCredential === true && carriesCredential(request)),
  );
  return table.filter((row) => specific.includes(row) || fallbacks.includes(row));
}
