// The typed platform data API client: trace delete, run query, example search and example
// delete. It is built like the control-plane client (see client-parts.ts) and is given the SAME
// rate budget as the control-plane client of its credential, so that one budget covers
// deployments and deletions. Calls of a bulk deletion pass `priority: 'bulk'`.
import { msUntilSpare } from '../controlplane/budget/headroom.js';
import { HttpApiClient } from '../controlplane/client/client-parts.js';
import type { ControlPlaneClientOptions } from '../controlplane/client/config.js';
import { localRejection } from '../controlplane/client/control-plane-client.js';
import type { Result } from '../controlplane/client/errors.js';
import type { CallOptions } from '../controlplane/client/request-executor.js';
import { queryString } from '../controlplane/client/routes.js';
import {
  ExampleDeleteResult,
  FoundExamples,
  RunQueryPage,
  Session,
  Sessions,
  TraceDeleteAccepted,
  type FoundExample,
} from './models.js';
import { MAX_IDS_PER_DELETE, PLATFORM_REGION_BASE_URLS, PLATFORM_ROUTES } from './routes.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_QUERY_PAGE = 100;

export type Metadata = Record<string, string | number | boolean>;

export interface RunQuery {
  sessionIds?: string[];
  /** Run ids; a trace's id is its root run's id. */
  ids?: string[];
  /** A filter expression of the platform's query language. */
  filter?: string;
  isRoot?: boolean;
  /** 1..100 (default 100). */
  limit?: number;
  cursor?: string;
}

export interface ExampleSearch {
  /** ANY pair matches. */
  metadata: Metadata;
  /** Only examples created before this time match. */
  asOf: Date;
  offset?: number;
  /** 1..100 (default 100). */
  limit?: number;
}

function idsProblem(ids: readonly string[], max: number): string | undefined {
  if (ids.length === 0) return 'must hold at least one id';
  if (ids.length > max) return `must hold at most ${max} ids per request (got ${ids.length})`;
  const bad = ids.findIndex((id) => !UUID.test(id));
  return bad >= 0 ? `item ${bad} is not a uuid` : undefined;
}

function metadataProblem(metadata: Metadata): string | undefined {
  return Object.keys(metadata).length === 0 ? 'must hold at least one key/value pair' : undefined;
}

export class PlatformDataClient extends HttpApiClient {
  /** `options.baseUrl` defaults to the region's platform API host (not the control plane's). */
  constructor(options: ControlPlaneClientOptions) {
    super(
      { ...options, baseUrl: options.baseUrl ?? PLATFORM_REGION_BASE_URLS[options.region ?? 'us'] },
      'platform-data-client',
    );
  }

  /** One trace delete request: at most 1000 ids of one session. Deletion happens later, unconfirmed. */
  async deleteTraces(
    sessionId: string,
    traceIds: readonly string[],
    options?: CallOptions,
  ): Promise<Result<void>> {
    const route = PLATFORM_ROUTES.traceDelete;
    if (!UUID.test(sessionId))
      return { ok: false, error: localRejection('POST', route, ['body', 'session_id'], 'must be a uuid') };
    const problem = idsProblem(traceIds, MAX_IDS_PER_DELETE);
    if (problem !== undefined)
      return { ok: false, error: localRejection('POST', route, ['body', 'trace_ids'], problem) };
    const result = await this.executor.execute(
      {
        method: 'POST',
        route,
        path: route,
        body: { trace_ids: traceIds, session_id: sessionId },
        schema: TraceDeleteAccepted,
      },
      options,
    );
    return result.ok ? { ok: true, value: undefined } : result;
  }

  /** Deletes, workspace-wide, every trace that has ANY of the pairs. */
  async deleteTracesByMetadata(metadata: Metadata, options?: CallOptions): Promise<Result<void>> {
    const route = PLATFORM_ROUTES.traceDelete;
    const problem = metadataProblem(metadata);
    if (problem !== undefined)
      return { ok: false, error: localRejection('POST', route, ['body', 'metadata'], problem) };
    const result = await this.executor.execute(
      { method: 'POST', route, path: route, body: { metadata }, schema: TraceDeleteAccepted },
      options,
    );
    return result.ok ? { ok: true, value: undefined } : result;
  }

  /** The workspace's session (tracing project) of exactly this name, or undefined when there is none. */
  async findSessionByName(name: string, options?: CallOptions): Promise<Result<Session | undefined>> {
    const route = PLATFORM_ROUTES.sessions;
    if (name === '')
      return { ok: false, error: localRejection('GET', route, ['query', 'name'], 'must not be empty') };
    const result = await this.executor.execute(
      { method: 'GET', route, path: route, query: queryString({ name }), schema: Sessions },
      options,
    );
    return result.ok ? { ok: true, value: result.value.find((s) => s.name === name) } : result;
  }

  /**
   * Milliseconds until the buckets a session lookup draws from hold `share` of their capacity
   * and no interactive request has waited on them for `quietMs` (0: now). Lookups that can
   * wait (a tracing project recorded after its deployment) spend only what the deployments of
   * the same key leave spare.
   */
  msUntilSessionLookupSpare(share: number, quietMs: number): number {
    const path = `${this.endpoint.pathPrefix}${PLATFORM_ROUTES.sessions}`;
    const request = { method: 'GET', path, credentialFingerprint: this.credentialFingerprint };
    return msUntilSpare(this.budget, request, share, quietMs);
  }

  /** The session with this id in the caller's workspace; undefined when it has none (404). */
  async readSession(sessionId: string, options?: CallOptions): Promise<Result<Session | undefined>> {
    const route = PLATFORM_ROUTES.session;
    if (!UUID.test(sessionId))
      return { ok: false, error: localRejection('GET', route, ['path', 'session_id'], 'must be a uuid') };
    const path = route.replace('{session_id}', sessionId);
    const result = await this.executor.execute({ method: 'GET', route, path, schema: Session }, options);
    if (!result.ok && result.error.kind === 'NotFound') return { ok: true, value: undefined };
    return result;
  }

  async queryRuns(query: RunQuery, options?: CallOptions): Promise<Result<RunQueryPage>> {
    const route = PLATFORM_ROUTES.runQuery;
    const limit = query.limit ?? MAX_QUERY_PAGE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_QUERY_PAGE) {
      return {
        ok: false,
        error: localRejection(
          'POST',
          route,
          ['body', 'limit'],
          `must be an integer from 1 to ${MAX_QUERY_PAGE}`,
        ),
      };
    }
    const body = {
      session: query.sessionIds ?? null,
      id: query.ids ?? null,
      filter: query.filter ?? null,
      is_root: query.isRoot ?? null,
      limit,
      cursor: query.cursor ?? null,
      select: ['id', 'trace_id'],
    };
    return this.executor.execute({ method: 'POST', route, path: route, body, schema: RunQueryPage }, options);
  }

  /** One page of the examples created before `asOf` that have ANY of the pairs, across datasets. */
  async searchExamples(search: ExampleSearch, options?: CallOptions): Promise<Result<FoundExample[]>> {
    const route = PLATFORM_ROUTES.examples;
    const problem = metadataProblem(search.metadata);
    if (problem !== undefined)
      return { ok: false, error: localRejection('GET', route, ['body', 'metadata'], problem) };
    if (Number.isNaN(search.asOf.getTime())) {
      return { ok: false, error: localRejection('GET', route, ['query', 'as_of'], 'must be a valid time') };
    }
    const query = queryString({
      as_of: search.asOf.toISOString(),
      offset: search.offset ?? 0,
      limit: search.limit ?? MAX_QUERY_PAGE,
    });
    return this.executor.execute(
      {
        method: 'GET',
        route,
        path: route,
        query,
        body: { metadata: search.metadata },
        schema: FoundExamples,
      },
      options,
    );
  }

  /** Soft (default: tombstones the current version) or hard (zeroes every version) delete of <= 1000 examples. */
  async deleteExamples(
    exampleIds: readonly string[],
    hardDelete: boolean,
    options?: CallOptions,
  ): Promise<Result<ExampleDeleteResult>> {
    const route = PLATFORM_ROUTES.exampleDelete;
    const problem = idsProblem(exampleIds, MAX_IDS_PER_DELETE);
    if (problem !== undefined)
      return { ok: false, error: localRejection('POST', route, ['body', 'example_ids'], problem) };
    return this.executor.execute(
      {
        method: 'POST',
        route,
        path: route,
        body: { example_ids: exampleIds, hard_delete: hardDelete },
        schema: ExampleDeleteResult,
      },
      options,
    );
  }
}
