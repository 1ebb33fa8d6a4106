// The published rate limits of the platform API (docs/api/platform-data.md, "Rate
// limits"), as data. One row of the spec's table is
// one row here, in the same order, with both region columns; the matcher and the buckets
// read nothing else, so a change of the published limits is a change of this table only.

export type Region = 'us' | 'eu';

/** What the server counts a request against: the API key, the user id with the IP, or the IP. */
export type IdentityKey = 'api-key' | 'user-id+ip' | 'ip';

export interface RateLimit {
  count: number;
  windowSeconds: number;
}

/**
 * How a row names paths. The spec writes `/repos`, `POST /runs/batch`, `*\/trigger`,
 * "containing /charts": paths are matched on whole segments so that `/repos` does not match
 * `/v1/integrations/repo_host/install`.
 * - `contains`: the path holds this run of segments anywhere (prefixes such as /api/v1 allowed).
 * - `endsWith`: the path ends with this run of segments.
 * - `endsWithUuid`: the path ends with this run of segments followed by one uuid segment.
 */
export type PathPattern =
  | { kind: 'contains'; segments: string }
  | { kind: 'endsWith'; segments: string }
  | { kind: 'endsWithUuid'; segments: string };

/** One alternative of a row: every field present must hold (a row matches when any alternative does). */
export interface MatchAlternative {
  method?: string;
  path?: PathPattern;
}

export interface RateRow {
  id: string;
  /** Alternatives, any of which makes the row match. An empty list matches every request. */
  match: MatchAlternative[];
  identity: IdentityKey;
  us: RateLimit;
  eu: RateLimit;
  category: string;
  /**
   * A fallback row ("Any request with x-api-key") applies only when no specific row of the same
   * identity matched. The spec does not say which row wins; it does publish specific rows ABOVE
   * the default (6000/10 for multipart ingest), which would be meaningless if the default row
   * also counted those requests, so the default is read as the rate of "everything else".
   */
  fallback?: boolean;
  /** The IP catch-all ("All other IPs") counts only requests that carry no credential. */
  onlyWithoutCredential?: boolean;
}

const per = (count: number, windowSeconds: number): RateLimit => ({ count, windowSeconds });
const both = (count: number, windowSeconds: number) => ({
  us: per(count, windowSeconds),
  eu: per(count, windowSeconds),
});
const contains = (segments: string): PathPattern => ({ kind: 'contains', segments });
const endsWith = (segments: string): PathPattern => ({ kind: 'endsWith', segments });

export const DEFAULT_API_KEY_ROW_ID = 'default-api-key';

export const RATE_TABLE: readonly RateRow[] = [
  {
    id: 'high-throughput-ip',
    match: [{ method: 'OPTIONS' }, { path: contains('/info') }, { path: endsWith('/v1/metadata/submit') }],
    identity: 'ip',
    ...both(2000, 10),
    category: 'High throughput',
  },
  {
    id: 'auth-api-key',
    match: [{ path: contains('/auth') }],
    identity: 'api-key',
    ...both(2000, 10),
    category: 'High throughput',
  },
  {
    id: 'auth-user',
    match: [{ path: contains('/auth') }],
    identity: 'user-id+ip',
    ...both(2000, 10),
    category: 'High throughput',
  },
  {
    id: 'beacon-ip',
    match: [{ path: contains('/v1/beacon') }],
    identity: 'ip',
    ...both(2000, 10),
    category: 'High throughput',
  },
  {
    id: 'repos-api-key',
    match: [{ path: contains('/repos') }],
    identity: 'api-key',
    ...both(100, 60),
    category: 'Repository',
  },
  {
    id: 'repos-user',
    match: [{ path: contains('/repos') }],
    identity: 'user-id+ip',
    ...both(100, 60),
    category: 'Repository',
  },
  {
    id: 'runs-batch-api-key',
    match: [{ method: 'POST', path: endsWith('/runs/batch') }],
    identity: 'api-key',
    ...both(2000, 10),
    category: 'High throughput',
  },
  {
    id: 'otel-traces-api-key',
    match: [{ method: 'POST', path: endsWith('/otel/v1/traces') }],
    identity: 'api-key',
    ...both(2000, 10),
    category: 'Run ingest',
  },
  {
    id: 'charts-api-key',
    match: [{ method: 'POST', path: contains('/charts') }],
    identity: 'api-key',
    ...both(750, 600),
    category: 'Charts',
  },
  {
    id: 'charts-user',
    match: [{ method: 'POST', path: contains('/charts') }],
    identity: 'user-id+ip',
    ...both(750, 600),
    category: 'Charts',
  },
  {
    id: 'runs-multipart-api-key',
    match: [{ method: 'POST', path: endsWith('/runs/multipart') }],
    identity: 'api-key',
    ...both(6000, 10),
    category: 'Multipart ingest',
  },
  {
    id: 'runs-query-api-key',
    match: [{ method: 'POST', path: endsWith('/runs/query') }],
    identity: 'api-key',
    ...both(15, 10),
    category: 'Run query (API)',
  },
  {
    id: 'runs-query-user',
    match: [{ method: 'POST', path: endsWith('/runs/query') }],
    identity: 'user-id+ip',
    ...both(300, 10),
    category: 'Run query (User)',
  },
  {
    id: 'generate-api-key',
    match: [{ path: contains('/generate') }],
    identity: 'api-key',
    ...both(30, 3600),
    category: 'Generation',
  },
  {
    id: 'generate-user',
    match: [{ path: contains('/generate') }],
    identity: 'user-id+ip',
    ...both(30, 3600),
    category: 'Generation',
  },
  {
    id: 'commits-api-key',
    match: [{ path: contains('/commits') }],
    identity: 'api-key',
    us: per(10000, 60),
    eu: per(2000, 60),
    category: 'Commits',
  },
  {
    id: 'commits-user',
    match: [{ path: contains('/commits') }],
    identity: 'user-id+ip',
    us: per(10000, 60),
    eu: per(2000, 60),
    category: 'Commits',
  },
  {
    id: 'deletion-api-key',
    match: [{ method: 'DELETE', path: contains('/sessions') }, { path: endsWith('/trigger') }],
    identity: 'api-key',
    ...both(10, 60),
    category: 'Deletion',
  },
  {
    id: 'deletion-user',
    match: [{ method: 'DELETE', path: contains('/sessions') }, { path: endsWith('/trigger') }],
    identity: 'user-id+ip',
    ...both(30, 60),
    category: 'Deletion',
  },
  {
    id: 'run-ingest-api-key',
    match: [{ method: 'POST', path: endsWith('/runs') }],
    identity: 'api-key',
    ...both(2000, 10),
    category: 'Run ingest',
  },
  {
    id: 'run-patch-api-key',
    match: [{ method: 'PATCH', path: contains('/runs') }],
    identity: 'api-key',
    ...both(2000, 10),
    category: 'Run ingest',
  },
  {
    id: 'feedback-api-key',
    match: [{ method: 'POST', path: endsWith('/feedback') }],
    identity: 'api-key',
    ...both(2000, 10),
    category: 'High throughput',
  },
  {
    id: 'run-lookup-api-key',
    // "GET /runs/{uuid} or /api/v1/runs/{uuid}": the second form is a prefixed first form.
    match: [{ method: 'GET', path: { kind: 'endsWithUuid', segments: '/runs' } }],
    identity: 'api-key',
    ...both(30, 60),
    category: 'Run lookup',
  },
  {
    id: 'examples-api-key',
    match: [{ method: 'GET', path: contains('/examples') }],
    identity: 'api-key',
    ...both(5000, 60),
    category: 'Examples',
  },
  {
    id: DEFAULT_API_KEY_ROW_ID,
    match: [],
    identity: 'api-key',
    ...both(1000, 10),
    category: 'Default (API key)',
    fallback: true,
  },
  {
    id: 'default-user',
    match: [],
    identity: 'user-id+ip',
    ...both(1000, 10),
    category: 'Default (User)',
    fallback: true,
  },
  {
    id: 'public-download-ip',
    match: [{ path: contains('/public/download') }],
    identity: 'ip',
    ...both(5000, 60),
    category: 'Public download',
  },
  {
    id: 'stats-api-key',
    match: [{ path: contains('/runs/stats') }],
    identity: 'api-key',
    us: per(1, 10),
    eu: per(20, 10),
    category: 'Stats',
  },
  {
    id: 'public-catch-all-ip',
    match: [],
    identity: 'ip',
    ...both(100, 60),
    category: 'Public (catch-all)',
    fallback: true,
    onlyWithoutCredential: true,
  },
];
