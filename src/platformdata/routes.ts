// The platform data API's routes the operator calls, as the spec names them (templates: the
// metrics' route label), and where each region's platform API lives.
import type { Region } from '../controlplane/budget/rate-table.js';

export const PLATFORM_ROUTES = {
  /** Trace delete: `{trace_ids (<= 1000), session_id}` or `{metadata}`; answers `{}` (200 or 202). */
  traceDelete: '/api/v1/runs/delete',
  /** Run query, the route the official SDKs' listRuns uses (rate row: 15 / 10 s per key). */
  runQuery: '/api/v1/runs/query',
  /** Sessions (tracing projects), `?name=` for the one of that exact name; the SDK's readProject. */
  sessions: '/api/v1/sessions',
  /** One session by id. */
  session: '/api/v1/sessions/{session_id}',
  /** Example search: `?as_of=` with a JSON body `{metadata}` (ANY pair), across datasets. */
  examples: '/api/v1/examples',
  /** Example delete: `{example_ids (<= 1000), hard_delete}`; answers `{count, example_ids}`. */
  exampleDelete: '/v1/platform/datasets/examples/delete',
} as const;

/** The production platform API hosts; the control plane's are in controlplane/client/config.ts. */
export const PLATFORM_REGION_BASE_URLS: Readonly<Record<Region, string>> = {
  us: 'https://api.smith.langchain.com',
  eu: 'https://eu.api.smith.langchain.com',
};

/** The spec's limit on trace ids per delete request, and the example delete route's. */
export const MAX_IDS_PER_DELETE = 1000;
