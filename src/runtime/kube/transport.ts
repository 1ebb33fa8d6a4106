// The HTTP path to the API server. @kubernetes/client-node's KubeConfig supplies the cluster
// URL and credentials (token files, exec plugins, client certificates, in-cluster config), but
// the requests are made here with node:http(s) because the runtime needs what the generated
// clients do not give: merge-patch content types, Lease MicroTime written with 6 fractional
// digits, bookmarks and watch timeouts, per-request deadlines and keep-alive connections.
import http from 'node:http';
import https from 'node:https';
import type { ClusterAccess } from './cluster-access.js';
import { KubeApiError } from './errors.js';
import { linesOf } from './json-lines.js';
import { withoutManagedFields } from './managed-fields-text.js';
import { RequestDeadline } from '../request-deadline.js';
import { abortSourceOf, type AbortSource } from '../../signals/abort-source.js';

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
  /**
   * A watch whose reader drops metadata.managedFields (an informer's cache): each event is
   * decoded without them (managed-fields-text.ts) instead of building them to throw away.
   */
  omitManagedFields?: boolean;
}

export interface KubeTransport {
  /** Sends a request and parses the JSON answer; non-2xx answers reject with KubeApiError. */
  json(request: KubeRequest): Promise<unknown>;
  /** Opens a streaming GET and yields each newline-delimited JSON value (a watch). */
  lines(request: KubeRequest): Promise<AsyncIterable<unknown>>;
}

const DEFAULT_TIMEOUT_MS = 30_000;

interface PreparedRequest {
  url: URL;
  options: https.RequestOptions;
}

export class KubeConfigTransport implements KubeTransport {
  private readonly server: URL;
  private agent: http.Agent | undefined;

  constructor(private readonly kubeConfig: ClusterAccess) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster)
      throw new Error('kubeconfig has no current cluster: set current-context to a context with a cluster');
    this.server = new URL(cluster.server);
  }

  async json(request: KubeRequest): Promise<unknown> {
    const deadline = new RequestDeadline(request.signal, request.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    let response: http.IncomingMessage;
    let text: string;
    try {
      response = await this.send(request, deadline);
      text = await readBody(response, deadline);
    } finally {
      deadline.release();
    }
    const parsed = parseJson(text);
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      throw KubeApiError.fromStatus(
        request.method,
        request.path,
        status,
        parsed,
        header(response, 'retry-after'),
      );
    }
    return parsed;
  }

  async lines(request: KubeRequest): Promise<AsyncIterable<unknown>> {
    const cancel = request.signal === undefined ? undefined : abortSourceOf(request.signal);
    const response = await this.send(request, cancel);
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      const text = await readBody(response, cancel);
      throw KubeApiError.fromStatus(
        request.method,
        request.path,
        status,
        parseJson(text),
        header(response, 'retry-after'),
      );
    }
    return jsonLines(response, request.signal, request.omitManagedFields === true);
  }

  private async prepare(request: KubeRequest): Promise<PreparedRequest> {
    const url = new URL(this.server.href.replace(/\/$/, '') + request.path);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const options: https.RequestOptions = { headers: {} };
    try {
      await this.kubeConfig.applyToHTTPSOptions(options);
    } catch (error) {
      // client-node 1.4 refuses plain-HTTP clusters unless skipTLSVerify is set, but it does so
      // only when creating its agent, after the credentials are in `options`; a plain-HTTP
      // server (the emulator, a kubectl proxy) needs no TLS, so the credentials suffice.
      if (url.protocol !== 'http:') throw error;
    }
    return { url, options };
  }

  private agentFor(url: URL, options: https.RequestOptions): http.Agent {
    // One keep-alive agent for the life of the client; the credentials (headers) are applied
    // per request, so rotated tokens are picked up, while the TLS material is read once.
    if (!this.agent) {
      this.agent =
        url.protocol === 'https:'
          ? new https.Agent({
              keepAlive: true,
              ca: options.ca,
              cert: options.cert,
              key: options.key,
              pfx: options.pfx,
              passphrase: options.passphrase,
              servername: options.servername,
              ...(options.rejectUnauthorized !== undefined
                ? { rejectUnauthorized: options.rejectUnauthorized }
                : {}),
            })
          : new http.Agent({ keepAlive: true });
    }
    return this.agent;
  }

  /**
   * A read sent on a kept-alive connection that the server had just closed (its idle timeout
   * racing the reuse) fails before any answer: it is sent once more on a new connection, as
   * Go's HTTP client does for idempotent requests. Writes are never repeated here.
   */
  private async send(request: KubeRequest, cancel: AbortSource | undefined): Promise<http.IncomingMessage> {
    try {
      return await this.sendOnce(request, cancel);
    } catch (error) {
      if (!(error instanceof StaleConnectionError)) throw error;
      if (!IDEMPOTENT.has(request.method)) throw error.failure;
    }
    try {
      return await this.sendOnce(request, cancel);
    } catch (error) {
      throw error instanceof StaleConnectionError ? error.failure : error;
    }
  }

  /** `cancel`: the request's deadline, or the caller's signal (a watch has no deadline). */
  private async sendOnce(
    request: KubeRequest,
    cancel: AbortSource | undefined,
  ): Promise<http.IncomingMessage> {
    const { url, options } = await this.prepare(request);
    const headers: http.OutgoingHttpHeaders = { accept: 'application/json' };
    // client-node fills `headers` as a plain object (Authorization, Impersonate-User).
    const given = options.headers;
    if (given && !Array.isArray(given)) Object.assign(headers, given);
    if (options.auth) headers.authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`;
    let payload: string | undefined;
    if (request.body !== undefined) {
      payload = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
      headers['content-type'] = request.contentType ?? 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    const requester = url.protocol === 'https:' ? https.request : http.request;
    return new Promise((resolve, reject) => {
      if (cancel?.aborted) {
        reject(abortError(request, cancel.reason));
        return;
      }
      const req = requester(
        url,
        { method: request.method, headers, agent: this.agentFor(url, options) },
        resolve,
      );
      const unfollow = cancel?.onAbort((reason) => req.destroy(abortError(request, reason)));
      if (unfollow !== undefined) req.on('close', unfollow);
      req.on('error', (error: NodeJS.ErrnoException) => {
        const failure =
          error instanceof KubeApiError
            ? error
            : new KubeApiError(0, 'NetworkError', `${request.method} ${request.path}: ${error.message}`);
        const stale = req.reusedSocket && error.code === 'ECONNRESET' && cancel?.aborted !== true;
        reject(stale ? new StaleConnectionError(failure) : failure);
      });
      req.end(payload);
    });
  }

  /** Closes idle keep-alive connections (on shutdown). */
  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
  }
}

/** Methods a stale connection may be retried for: they change nothing, or nothing twice. */
const IDEMPOTENT: ReadonlySet<string> = new Set(['GET', 'HEAD']);

/** A request that failed on a reused connection before any answer; carries the error to report. */
class StaleConnectionError extends Error {
  constructor(readonly failure: KubeApiError) {
    super(failure.message);
  }
}

function abortError(request: KubeRequest, reason: unknown): KubeApiError {
  const timedOut = reason instanceof DOMException && reason.name === 'TimeoutError';
  return new KubeApiError(
    0,
    timedOut ? 'Timeout' : 'Aborted',
    `${request.method} ${request.path}: ${timedOut ? 'request timed out' : 'request aborted'}`,
  );
}

function header(response: http.IncomingMessage, name: string): string | undefined {
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

async function readBody(response: http.IncomingMessage, cancel: AbortSource | undefined): Promise<string> {
  const chunks: Buffer[] = [];
  if (cancel?.aborted) response.destroy();
  const unfollow = cancel?.onAbort(() => response.destroy());
  try {
    for await (const chunk of response) chunks.push(chunk as Buffer);
  } catch (error) {
    throw new KubeApiError(0, 'NetworkError', `reading response: ${(error as Error).message}`);
  } finally {
    unfollow?.();
  }
  if (!response.complete) throw new KubeApiError(0, 'NetworkError', 'response ended before it was complete');
  return Buffer.concat(chunks).toString('utf8');
}

async function* jsonLines(
  response: http.IncomingMessage,
  signal: AbortSignal | undefined,
  omitManagedFields: boolean,
): AsyncIterable<unknown> {
  // A stream destroyed on abort ends the iteration of its chunks (with an error, which the
  // aborted signal turns into a quiet end below).
  const onAbort = (): void => {
    response.destroy();
  };
  if (signal?.aborted) onAbort();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    try {
      for await (const line of linesOf(response as AsyncIterable<Buffer>)) {
        if (line.trim() === '') continue;
        yield JSON.parse(omitManagedFields ? withoutManagedFields(line) : line) as unknown;
      }
    } catch (error) {
      if (signal?.aborted) return;
      throw error instanceof KubeApiError
        ? error
        : new KubeApiError(0, 'NetworkError', `watch stream broken: ${(error as Error).message}`);
    }
    if (signal?.aborted) return;
    // A server that closes the stream cleanly ends the watch; one that breaks it mid-way is an error.
    if (!response.complete) throw new KubeApiError(0, 'NetworkError', 'watch stream broken');
  } finally {
    signal?.removeEventListener('abort', onAbort);
    response.destroy();
  }
}
