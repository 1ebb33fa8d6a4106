// The platform data API of one region, served on the control-plane emulator's address. One
// request: body, the presented key (401 when unknown), the published rate rows (429), then
// routing (404/405), auth of a caller without a key (except /ok and /info), the tenant and the
// handler. Every answer is counted in the emulator's stats.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { presentedKey } from '../http/api-keys.js';
import { HttpError } from '../http/http-error.js';
import { writeJson } from '../http/http-io.js';
import { keyFingerprint } from '../http/ids.js';
import type { Reply } from '../http/reply.js';
import type { Router } from '../http/router.js';
import type { Logger } from '../../observability/logger.js';
import type { KeyRegistry } from '../http/api-keys.js';
import type { FaultRegistry } from '../http/faults.js';
import type { FixedWindowRateLimiter } from '../http/rate-limiter.js';
import type { StatsCounter } from '../http/stats.js';
import { RESET_STATUS } from '../http/stats.js';
import { replyFromError, reportUnexpected } from '../http/unexpected-errors.js';
import { DatasetHandlers } from './dataset-handlers.js';
import { DatasetStore } from './dataset-store.js';
import { ExampleHandlers } from './example-handlers.js';
import { MAX_INGEST_BODY_BYTES } from './info-handlers.js';
import type { PlatformContext, PlatformHandler } from './platform-context.js';
import { PlatformRateLimiter } from './platform-rate-limiter.js';
import { normalizePlatformPath, OPEN_ROUTES, platformRouter } from './platform-routes.js';
import type { PlatformRegion } from './rate-rows.js';
import { RunIngestHandlers } from './run-ingest-handlers.js';
import { RunQueryHandlers } from './run-query-handlers.js';
import { RunQueryV2Handlers } from './run-query-v2-handlers.js';
import { SessionHandlers } from './session-handlers.js';
import { TraceStore } from './trace-store.js';
import { tracingProjectSessions, type TracingProjectSessions } from './tracing-project-sessions.js';

export interface PlatformOptions {
  /** How long the simulated weekend job waits before it removes deleted traces (ms). */
  traceDeleteDelayMs: number;
  /** Which column of the rate table applies. */
  region: PlatformRegion;
}

export const DEFAULT_TRACE_DELETE_DELAY_MS = 2_000;

function readBuffer(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_INGEST_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_INGEST_BODY_BYTES) {
        reject(new HttpError(413, { detail: `Request body exceeds ${MAX_INGEST_BODY_BYTES} bytes` }));
      } else resolve(Buffer.concat(chunks));
    });
    // The client went away mid-body: its error, not the emulator's.
    req.on('error', () => reject(new HttpError(400, { detail: 'The request body could not be read' })));
  });
}

/**
 * What the platform data API shares with the control-plane emulator that serves it: the same
 * keys and tenants, the per-key rate limiter, injected faults, the stats, the clock and the
 * logger (the real platform answers on the same API key as the control plane).
 */
export interface PlatformHost {
  keys: KeyRegistry;
  limiter: FixedWindowRateLimiter;
  faults: FaultRegistry;
  stats: StatsCounter;
  /** Whether a 429 from the rate limiter carries Retry-After. */
  settings: { retryAfter: boolean };
  clock: () => number;
  logger: Logger;
}

export class PlatformDataApi {
  readonly traces: TraceStore;
  readonly datasets = new DatasetStore();
  /** The control plane's tracing projects, held as sessions of this API. */
  readonly tracingProjects: TracingProjectSessions;
  private readonly router: Router<PlatformHandler>;
  private readonly limiter: PlatformRateLimiter;

  constructor(
    private readonly runtime: PlatformHost,
    options: PlatformOptions,
  ) {
    this.traces = new TraceStore(options.traceDeleteDelayMs);
    this.limiter = new PlatformRateLimiter(options.region, runtime.limiter);
    const sessions = new SessionHandlers(this.traces);
    this.tracingProjects = tracingProjectSessions(sessions, this.traces);
    this.router = platformRouter({
      sessions,
      ingest: new RunIngestHandlers(this.traces, sessions),
      query: new RunQueryHandlers(this.traces),
      queryV2: new RunQueryV2Handlers(this.traces),
      datasets: new DatasetHandlers(this.datasets),
      examples: new ExampleHandlers(this.datasets),
    });
  }

  /**
   * Whether this request is the platform API's (the control plane answers the rest). At the
   * root only an exact route match counts: other emulators mounted on this address may serve
   * root paths of their own (`POST /runs/wait` is not a run id with the wrong method). Under
   * /api/ every path is ours, so a wrong method there is our 405.
   */
  owns(method: string, url: string): boolean {
    const pathname = pathOf(url);
    if (pathname.startsWith('/api/v1/') || pathname.startsWith('/api/v2/')) return true;
    if (isPlatformFamily(pathname)) return true;
    return this.router.match(method, normalizePlatformPath(pathname)).kind === 'found';
  }

  reset(): void {
    this.traces.reset();
    this.datasets.reset();
    this.limiter.reset();
  }

  /** Serves one request; what it rejects with is the listener's request guard's to answer. */
  handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const reply = await this.process(req);
    if (reply !== undefined) writeJson(res, reply.status, reply.body, reply.headers);
  };

  /** The answer to write, or undefined when the connection was reset. */
  private async process(req: IncomingMessage): Promise<Reply | undefined> {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const pathname = pathOf(url);
    const query = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
    const match = this.router.match(method, normalizePlatformPath(pathname));
    const route = match.kind === 'not-found' ? '(unmatched)' : match.template;
    const key = presentedKey(req.headers);
    const fault = this.runtime.faults.take(method, route);
    if (fault !== undefined) {
      // Injected as a proxy in front would: after its latency, a status or a reset, the service untouched.
      if (fault.latencyMs > 0) await sleep(fault.latencyMs);
      if (fault.outcome.kind === 'reset') {
        this.runtime.stats.record(
          method,
          route,
          RESET_STATUS,
          key === undefined ? null : keyFingerprint(key),
        );
        req.socket.destroy();
        return undefined;
      }
      if (fault.outcome.kind === 'status') {
        const { status, retryAfterSeconds } = fault.outcome;
        const headers: Record<string, string> =
          retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) };
        const body = { detail: status === 429 ? 'Rate limit exceeded' : `Injected fault: HTTP ${status}` };
        this.runtime.stats.record(method, route, status, key === undefined ? null : keyFingerprint(key));
        return { status, body, headers };
      }
    }
    const reply = await this.answer(req, method, pathname, query, match, key).catch((error: unknown) =>
      replyFromError(error, (unexpected) => reportUnexpected(this.runtime.logger, unexpected, req)),
    );
    this.runtime.stats.record(method, route, reply.status, key === undefined ? null : keyFingerprint(key));
    return reply;
  }

  private async answer(
    req: IncomingMessage,
    method: string,
    pathname: string,
    query: URLSearchParams,
    match: ReturnType<Router<PlatformHandler>['match']>,
    key: string | undefined,
  ): Promise<Reply> {
    const body = await readBuffer(req);
    // The rate table keys on who calls, not on what the path names: the limiter runs before
    // routing, so a row answers 429 at its count even on a route the emulator does not serve
    // (that one answers 404/405 afterwards). A presented key must be a real one to have rows of
    // its own; a caller with only x-user-id is counted on the user+IP rows, then refused (401).
    const entry = key === undefined ? undefined : this.runtime.keys.authenticate(key);
    const now = this.runtime.clock();
    const userId = req.headers['x-user-id'];
    const decision = this.limiter.take(
      method,
      pathname,
      {
        ...(entry === undefined ? {} : { apiKey: entry.key }),
        ...(typeof userId === 'string' && userId !== '' ? { userId } : {}),
        ip: req.socket.remoteAddress ?? 'unknown',
      },
      now,
    );
    if (!decision.allowed) {
      const headers: Record<string, string> = this.runtime.settings.retryAfter
        ? { 'retry-after': String(decision.retryAfterSeconds) }
        : {};
      throw new HttpError(
        429,
        {
          detail: `Rate limit exceeded (${decision.category}: ${decision.limit.count} per ${decision.limit.windowSeconds} s)`,
        },
        headers,
      );
    }
    if (match.kind === 'not-found') throw new HttpError(404, { detail: 'Not Found' });
    if (match.kind === 'method-not-allowed') {
      throw new HttpError(405, { detail: 'Method Not Allowed' }, { allow: match.allowed.join(', ') });
    }
    if (entry === undefined && !OPEN_ROUTES.has(match.template)) this.runtime.keys.authenticate(undefined);
    const caller = entry === undefined ? undefined : this.runtime.keys.resolveTenant(entry, req.headers);
    const ctx: PlatformContext = {
      params: match.params,
      query,
      now,
      body,
      contentType: String(req.headers['content-type'] ?? ''),
      caller,
    };
    return match.handler(ctx);
  }
}

/**
 * Root path families that only the platform API has: the rate table's own families (`/auth`,
 * `/repos`, `/commits`, ...) and the resources this emulator serves, whatever the method. The
 * SDK calls them at the root, so their rows must count there too. `/runs` is left out: other
 * emulators on this address serve root paths under it (`POST /runs/wait`).
 */
const PLATFORM_ROOT_FAMILIES = [
  '/auth',
  '/repos',
  '/commits',
  '/generate',
  '/charts',
  '/feedback',
  '/public',
  '/otel',
  '/sessions',
  '/datasets',
  '/examples',
  '/runs/stats',
  '/v1/beacon',
  '/v1/metadata',
  '/v1/platform',
];

function isPlatformFamily(pathname: string): boolean {
  return PLATFORM_ROOT_FAMILIES.some((family) => pathname === family || pathname.startsWith(`${family}/`));
}

function pathOf(url: string): string {
  const queryStart = url.indexOf('?');
  return queryStart < 0 ? url : url.slice(0, queryStart);
}
