// One request's way through the emulator. For the spec's API: route match (404/405),
// injected faults (latency, then a status or a reset, as a proxy in front would), auth
// (401; unknown keys are never charged), the per-key rate limit (429), the tenant (400/403),
// then the handler. Every API answer is counted in the stats; admin requests are not.
// Before any of that, anything under /_emulator/ must pass the admin guard (admin-guard.ts).
// (Paths whose percent escapes do not decode never get here: the listener answers them.)
// An error no handler expected is logged and answered with a bare 500 (unexpected-errors.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { AGENT_ADMIN_PREFIX, AGENT_PATH_PREFIX, type AgentRuntimeEmulator } from '../agents/index.js';
import { presentedKey } from '../http/api-keys.js';
import { detailError } from '../http/http-error.js';
import { readBody, writeJson } from '../http/http-io.js';
import { keyFingerprint } from '../http/ids.js';
import type { ApiContext, Handler, Reply, RequestContext } from './request-context.js';
import { ADMIN_PREFIX, adminRouter, apiRouter } from './routes.js';
import type { Router } from '../http/router.js';
import type { EmulatorRuntime } from './runtime.js';
import { RESET_STATUS } from '../http/stats.js';
import { replyFromError, reportUnexpected } from '../http/unexpected-errors.js';

/** The route name stats and fault rules use for a path that matches no route. */
export const UNMATCHED_ROUTE = '(unmatched)';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

export class RequestPipeline {
  private readonly api: Router<Handler<ApiContext>>;
  private readonly admin: Router<Handler<RequestContext>>;
  private readonly fingerprints = new Map<string, string>();

  constructor(
    private readonly runtime: EmulatorRuntime,
    private readonly agents: AgentRuntimeEmulator,
  ) {
    this.api = apiRouter(runtime);
    this.admin = adminRouter(runtime);
  }

  /** Serves one request; what it rejects with is the listener's request guard's to answer. */
  handle = (req: IncomingMessage, res: ServerResponse): Promise<void> => this.process(req, res);

  private fingerprint(key: string): string {
    let fingerprint = this.fingerprints.get(key);
    if (fingerprint === undefined) {
      fingerprint = keyFingerprint(key);
      if (this.fingerprints.size < 10_000) this.fingerprints.set(key, fingerprint);
    }
    return fingerprint;
  }

  private async process(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const report = (error: unknown): void => reportUnexpected(this.runtime.logger, error, req);
    const refusal = this.refusal(req, report);
    if (refusal) {
      writeJson(res, refusal.status, refusal.body, refusal.headers);
      return;
    }
    // Split by hand: new URL() per request is a measurable share of a GET's cost.
    const target = req.url ?? '/';
    const queryStart = target.indexOf('?');
    const pathname = queryStart < 0 ? target : target.slice(0, queryStart);
    // The deployments' agent runtimes: another service on the same listener.
    if (pathname.startsWith(AGENT_PATH_PREFIX)) return this.agents.handle(req, res, pathname);
    if (pathname.startsWith(AGENT_ADMIN_PREFIX)) return this.agents.handleAdmin(req, res, pathname);
    const query = new URLSearchParams(queryStart < 0 ? '' : target.slice(queryStart + 1));
    const rawBody = METHODS_WITH_BODY.has(method) ? await readBody(req).catch((e: unknown) => e) : '';
    if (rawBody instanceof Error) {
      const reply = replyFromError(rawBody, report);
      writeJson(res, reply.status, reply.body, reply.headers);
      return;
    }
    const base = { query, rawBody: rawBody as string };

    if (pathname.startsWith(ADMIN_PREFIX)) {
      const reply = this.dispatch(
        this.admin,
        method,
        pathname,
        (params) => ({ ...base, params, now: this.runtime.clock() }),
        report,
      );
      writeJson(res, reply.status, reply.body, reply.headers);
      return;
    }

    const match = this.api.match(method, pathname);
    const route = match.kind === 'not-found' ? UNMATCHED_ROUTE : match.template;
    const key = presentedKey(req.headers);
    const fingerprint = key === undefined ? null : this.fingerprint(key);

    this.runtime.onApiRequest?.({
      atMs: this.runtime.clock(),
      method,
      route,
      userAgent: req.headers['user-agent'] ?? '',
    });
    const fault = this.runtime.faults.take(method, route);
    if (fault) {
      if (fault.latencyMs > 0) await sleep(fault.latencyMs);
      if (fault.outcome.kind === 'reset') {
        this.runtime.stats.record(method, route, RESET_STATUS, fingerprint);
        req.socket.destroy();
        return;
      }
      if (fault.outcome.kind === 'status') {
        const headers: Record<string, string> =
          fault.outcome.retryAfterSeconds !== undefined
            ? { 'retry-after': String(fault.outcome.retryAfterSeconds) }
            : {};
        const status = fault.outcome.status;
        this.runtime.stats.record(method, route, status, fingerprint);
        const detail = status === 429 ? 'Rate limit exceeded' : `Injected fault: HTTP ${status}`;
        const echo = fault.outcome.echoBody ? `; request body: ${base.rawBody}` : '';
        writeJson(res, status, { detail: `${detail}${echo}` }, headers);
        return;
      }
    }

    const reply = this.answerApi(match, req, key, base, report);
    this.runtime.stats.record(method, route, reply.status, fingerprint);
    writeJson(res, reply.status, reply.body, reply.headers);
  }

  private answerApi(
    match: ReturnType<Router<Handler<ApiContext>>['match']>,
    req: IncomingMessage,
    key: string | undefined,
    base: { query: URLSearchParams; rawBody: string },
    report: (error: unknown) => void,
  ): Reply {
    try {
      if (match.kind === 'not-found') throw detailError(404, 'Not Found');
      if (match.kind === 'method-not-allowed') {
        throw detailError(405, 'Method Not Allowed', { allow: match.allowed.join(', ') });
      }
      const entry = this.runtime.keys.authenticate(key);
      const now = this.runtime.clock();
      const decision = this.runtime.limiter.take(entry.key, now);
      if (!decision.allowed) {
        const headers: Record<string, string> = this.runtime.settings.retryAfter
          ? { 'retry-after': String(decision.retryAfterSeconds) }
          : {};
        throw detailError(429, 'Rate limit exceeded', headers);
      }
      const caller = this.runtime.keys.resolveTenant(entry, req.headers);
      return match.handler({ ...base, params: match.params, now, caller });
    } catch (error) {
      return replyFromError(error, report);
    }
  }

  /** The answer for an admin request the guard refuses. */
  private refusal(req: IncomingMessage, report: (error: unknown) => void): Reply | undefined {
    if (!(req.url ?? '/').startsWith(ADMIN_PREFIX)) return undefined;
    try {
      this.runtime.adminGuard.check(req.headers);
      return undefined;
    } catch (error) {
      return replyFromError(error, report);
    }
  }

  private dispatch(
    router: Router<Handler<RequestContext>>,
    method: string,
    path: string,
    context: (params: Record<string, string>) => RequestContext,
    report: (error: unknown) => void,
  ): Reply {
    try {
      const match = router.match(method, path);
      if (match.kind === 'not-found') throw detailError(404, 'Not Found');
      if (match.kind === 'method-not-allowed') {
        throw detailError(405, 'Method Not Allowed', { allow: match.allowed.join(', ') });
      }
      return match.handler(context(match.params));
    } catch (error) {
      return replyFromError(error, report);
    }
  }
}
