// The HTTP path to the API server. @kubernetes/client-node's KubeConfig (or our own light
// reader, cluster-access.ts) supplies the cluster URL and credentials (token files, exec
// plugins, client certificates, in-cluster config), but the requests are made here because
// the runtime needs what the generated clients do not give: merge-patch content types, Lease
// MicroTime written with 6 fractional digits, bookmarks and watch timeouts, per-request
// deadlines and keep-alive connections.
//
// The requests go through one undici Pool (keep-alive connections to the one API server):
// measured against the same local server, a PATCH with a 1.7 KB answer cost the calling
// process about 150 us of CPU through undici and 240-290 us through node:http with this
// file's former request set-up, and the operator makes three Kubernetes writes for every
// object it adopts and eight for every object it creates (docs/benchmarks.md).
import { Pool, type Dispatcher } from 'undici';
import type https from 'node:https';
import type { ClusterAccess } from './cluster-access.js';
import { KubeApiError } from './errors.js';
import { linesOf } from './json-lines.js';
import { RequestDeadline } from '../request-deadline.js';

export type QueryValue = string | number | boolean | undefined;

export interface KubeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, QueryValue>;
  /** Serialized as JSON unless it is already a string. */
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
  /** Deadline for the whole exchange of a non-streaming request. */
  timeoutMs?: number;
}

export interface KubeTransport {
  /** Sends a request and parses the JSON answer; non-2xx answers reject with KubeApiError. */
  json(request: KubeRequest): Promise<unknown>;
  /** Opens a streaming GET and yields each newline-delimited JSON value (a watch). */
  lines(request: KubeRequest): Promise<AsyncIterable<unknown>>;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * How long an idle connection is kept. Under the API server's own idle timeout (kube-apiserver
 * keeps idle connections 90 s, many load balancers 60 s); a server that closes one first is
 * handled by the retry of reads (send).
 */
const KEEP_ALIVE_MS = 30_000;

type Response = Dispatcher.ResponseData;

export class KubeConfigTransport implements KubeTransport {
  private readonly server: URL;
  /** The server URL's path (a proxy's prefix such as /k8s/clusters/c-1), without its last slash. */
  private readonly pathPrefix: string;
  private pool: Pool | undefined;

  constructor(private readonly kubeConfig: ClusterAccess) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster)
      throw new Error('kubeconfig has no current cluster: set current-context to a context with a cluster');
    this.server = new URL(cluster.server);
    this.pathPrefix = this.server.pathname.replace(/\/$/, '');
  }

  async json(request: KubeRequest): Promise<unknown> {
    const deadline = new RequestDeadline(request.signal, request.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const bounded = { ...request, signal: deadline.signal };
    let response: Response;
    let text: string;
    try {
      response = await this.send(bounded);
      text = await readBody(response, bounded);
    } finally {
      deadline.release();
    }
    await connectionReturned();
    const parsed = parseJson(text);
    if (response.statusCode < 200 || response.statusCode >= 300) {
      throw KubeApiError.fromStatus(
        request.method,
        request.path,
        response.statusCode,
        parsed,
        header(response, 'retry-after'),
      );
    }
    return parsed;
  }

  async lines(request: KubeRequest): Promise<AsyncIterable<unknown>> {
    const response = await this.send(request);
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const text = await readBody(response, request);
      throw KubeApiError.fromStatus(
        request.method,
        request.path,
        response.statusCode,
        parseJson(text),
        header(response, 'retry-after'),
      );
    }
    return jsonLines(response, request.signal);
  }

  private poolFor(options: https.RequestOptions): Pool {
    // One pool for the life of the client; the credentials (headers) are applied per request,
    // so rotated tokens are picked up, while the TLS material is read once.
    this.pool ??= new Pool(this.server.origin, {
      connections: null,
      pipelining: 1,
      keepAliveTimeout: KEEP_ALIVE_MS,
      // The request's own deadline governs (RequestDeadline); a watch has none, and may carry
      // no event for minutes. These only stop undici giving up on its own.
      headersTimeout: 0,
      bodyTimeout: 0,
      ...(this.server.protocol === 'https:'
        ? {
            connect: {
              ca: options.ca,
              cert: options.cert,
              key: options.key,
              pfx: options.pfx,
              passphrase: options.passphrase,
              ...(options.servername !== undefined ? { servername: options.servername } : {}),
              ...(options.rejectUnauthorized !== undefined
                ? { rejectUnauthorized: options.rejectUnauthorized }
                : {}),
            },
          }
        : {}),
    });
    return this.pool;
  }

  /**
   * A read sent on a kept-alive connection that the server had just closed (its idle timeout
   * racing the reuse) fails before any answer: it is sent once more, on a new connection, as
   * Go's HTTP client does for idempotent requests. Writes are never repeated here.
   */
  private async send(request: KubeRequest): Promise<Response> {
    try {
      return await this.sendOnce(request);
    } catch (error) {
      if (!(error instanceof StaleConnectionError)) throw error;
      if (!IDEMPOTENT.has(request.method)) throw error.failure;
    }
    try {
      return await this.sendOnce(request);
    } catch (error) {
      throw error instanceof StaleConnectionError ? error.failure : error;
    }
  }

  private async sendOnce(request: KubeRequest): Promise<Response> {
    const options: https.RequestOptions = { headers: {} };
    try {
      await this.kubeConfig.applyToHTTPSOptions(options);
    } catch (error) {
      // client-node 1.4 refuses plain-HTTP clusters unless skipTLSVerify is set, but it does so
      // only when creating its agent, after the credentials are in `options`; a plain-HTTP
      // server (the emulator, a kubectl proxy) needs no TLS, so the credentials suffice.
      if (this.server.protocol !== 'http:') throw error;
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    // client-node fills `headers` as a plain object (Authorization, Impersonate-User).
    const given = options.headers;
    if (given && !Array.isArray(given)) {
      for (const [name, value] of Object.entries(given)) {
        if (value !== undefined) headers[name.toLowerCase()] = String(value);
      }
    }
    if (options.auth) headers.authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`;
    let payload: string | null = null;
    if (request.body !== undefined) {
      payload = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
      headers['content-type'] = request.contentType ?? 'application/json';
    }
    if (request.signal?.aborted) throw abortError(request);
    try {
      return await this.poolFor(options).request({
        origin: this.server.origin,
        method: request.method,
        path: this.pathOf(request),
        headers,
        body: payload,
        signal: request.signal ?? null,
      });
    } catch (error) {
      if (request.signal?.aborted) throw abortError(request);
      const failure = new KubeApiError(
        0,
        'NetworkError',
        `${request.method} ${request.path}: ${messageOf(error)}`,
      );
      throw STALE_CODES.has(errorCode(error)) ? new StaleConnectionError(failure) : failure;
    }
  }

  private pathOf(request: KubeRequest): string {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) query.set(name, String(value));
    }
    const search = query.size === 0 ? '' : `?${query.toString()}`;
    return `${this.pathPrefix}${request.path}${search}`;
  }

  /** Closes the connections, open watches included (on shutdown). */
  close(): void {
    const pool = this.pool;
    this.pool = undefined;
    // Destroying fails whatever is still in flight; nobody waits for those answers now.
    pool?.destroy().catch(() => undefined);
  }
}

/** Methods a stale connection may be retried for: they change nothing, or nothing twice. */
const IDEMPOTENT: ReadonlySet<string> = new Set(['GET', 'HEAD']);

/**
 * A connection that broke before any answer came: undici's "other side closed" and the
 * socket's own resets. A read is sent again once (send); a write is not.
 */
const STALE_CODES: ReadonlySet<string> = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** A request that failed on a broken connection before any answer; carries the error to report. */
class StaleConnectionError extends Error {
  constructor(readonly failure: KubeApiError) {
    super(failure.message);
  }
}

function abortError(request: KubeRequest): KubeApiError {
  const reason: unknown = request.signal?.reason;
  const timedOut = reason instanceof DOMException && reason.name === 'TimeoutError';
  return new KubeApiError(
    0,
    timedOut ? 'Timeout' : 'Aborted',
    `${request.method} ${request.path}: ${timedOut ? 'request timed out' : 'request aborted'}`,
  );
}

/**
 * undici puts a connection back in its pool on the event-loop turn after the answer has been
 * read. A caller that sent its next request at once (a worker's next write) found none free and
 * the pool opened another: with 8 workers, 13 connections where 8 do; with 64, 128 sockets and
 * 8 MB more resident. Answering on the next turn keeps one connection per request in flight.
 */
function connectionReturned(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The code of a network error; undici may wrap the socket's error one level down. */
function errorCode(error: unknown): string {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 3; depth += 1) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    current = current.cause;
  }
  return '';
}

/** The error's message, with its cause's when undici wraps the socket's or TLS's error. */
function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause !== undefined && !error.message.includes(cause) ? `${error.message}: ${cause}` : error.message;
}

function header(response: Response, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The whole answer as text; a broken connection or the request's abort rejects with a KubeApiError. */
async function readBody(response: Response, request: KubeRequest): Promise<string> {
  try {
    // undici ends the body with an error when the signal aborts or the connection breaks
    // before the answer is complete (its length, or the chunked encoding's end, not reached).
    return await response.body.text();
  } catch (error) {
    if (request.signal?.aborted) throw abortError(request);
    throw new KubeApiError(0, 'NetworkError', `reading response: ${messageOf(error)}`);
  }
}

async function* jsonLines(response: Response, signal?: AbortSignal): AsyncIterable<unknown> {
  // undici ends the body with an error when the signal aborts (turned into a quiet end below)
  // and when the connection breaks before the chunked stream's end (a broken watch).
  const body = response.body;
  try {
    try {
      for await (const line of linesOf(body as AsyncIterable<Buffer>)) {
        if (line.trim() === '') continue;
        yield JSON.parse(line) as unknown;
      }
    } catch (error) {
      if (signal?.aborted) return;
      throw error instanceof KubeApiError
        ? error
        : new KubeApiError(0, 'NetworkError', `watch stream broken: ${messageOf(error)}`);
    }
  } finally {
    body.destroy();
  }
}
