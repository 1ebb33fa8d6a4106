// The platform data API's routes, at the root as the official SDKs call them. Requests under
// /api/v1 are served by the same routes (see normalizePlatformPath). Literal routes come
// before parameterised ones of the same length, so `/runs/query` is never read as a run id.
import { Router } from '../http/router.js';
import type { DatasetHandlers } from './dataset-handlers.js';
import type { ExampleHandlers } from './example-handlers.js';
import { info, ok } from './info-handlers.js';
import type { PlatformHandler } from './platform-context.js';
import type { RunIngestHandlers } from './run-ingest-handlers.js';
import type { RunQueryHandlers } from './run-query-handlers.js';
import type { RunQueryV2Handlers } from './run-query-v2-handlers.js';
import type { SessionHandlers } from './session-handlers.js';

/** Routes that answer without an API key. */
export const OPEN_ROUTES = new Set(['/ok', '/info']);

export interface PlatformHandlerSet {
  sessions: SessionHandlers;
  ingest: RunIngestHandlers;
  query: RunQueryHandlers;
  queryV2: RunQueryV2Handlers;
  datasets: DatasetHandlers;
  examples: ExampleHandlers;
}

export function platformRouter(h: PlatformHandlerSet): Router<PlatformHandler> {
  return new Router<PlatformHandler>()
    .add('GET', '/ok', ok)
    .add('GET', '/info', info)
    .add('POST', '/sessions', h.sessions.create)
    .add('GET', '/sessions', h.sessions.list)
    .add('GET', '/sessions/{session_id}', h.sessions.get)
    .add('POST', '/runs', h.ingest.createOne)
    .add('POST', '/runs/batch', h.ingest.batch)
    .add('POST', '/runs/multipart', h.ingest.multipart)
    .add('POST', '/runs/query', h.query.query)
    .add('POST', '/runs/delete', h.query.delete)
    .add('GET', '/runs/{run_id}', h.ingest.get)
    .add('PATCH', '/runs/{run_id}', h.ingest.patchOne)
    .add('POST', '/api/v2/runs/query', h.queryV2.query)
    .add('GET', '/api/v2/runs/{run_id}', h.queryV2.retrieve)
    .add('POST', '/datasets', h.datasets.create)
    .add('GET', '/datasets', h.datasets.list)
    .add('GET', '/datasets/{dataset_id}', h.datasets.get)
    .add('GET', '/datasets/{dataset_id}/version', h.datasets.version)
    .add('POST', '/examples', h.examples.createOne)
    .add('GET', '/examples', h.examples.list)
    .add('DELETE', '/examples', h.examples.softDeleteMany)
    .add('POST', '/examples/bulk', h.examples.createMany)
    .add('GET', '/examples/{example_id}', h.examples.get)
    .add('DELETE', '/examples/{example_id}', h.examples.softDeleteOne)
    .add('POST', '/v1/platform/datasets/examples/delete', h.examples.deleteMany)
    .add('POST', '/v1/platform/datasets/{dataset_id}/examples', h.examples.upload)
    .add('PATCH', '/v1/platform/datasets/{dataset_id}/examples', h.examples.update);
}

/**
 * `/api/v1/x` is served as `/x` (an SDK configured with the `/api/v1` base URL), and
 * `/api/v1/platform/...` as `/v1/platform/...` (the SDK drops its own `/v1` after such a base).
 */
export function normalizePlatformPath(pathname: string): string {
  if (!pathname.startsWith('/api/v1/')) return pathname;
  const rest = pathname.slice('/api/v1'.length);
  return rest.startsWith('/platform/') ? `/v1${rest}` : rest;
}
