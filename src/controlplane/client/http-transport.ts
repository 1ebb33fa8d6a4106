// One keep-alive undici Pool per base URL (or a ProxyAgent when the environment names a proxy
// for it, see proxy-env.ts); sends one request under a deadline and says what happened,
// without judging it. It knows nothing of retries, budgets or the control plane. Extra CA
// certificates (a TLS-inspecting proxy's) come from Node's own NODE_EXTRA_CA_CERTS.
import { Pool, ProxyAgent, type Dispatcher } from 'undici';
import type { Clock } from '../budget/clock.js';
import type { HeaderBag } from '../budget/rate-limit-headers.js';
import { readBoundedText } from './bounded-body.js';
import { proxyFor, type ProxyEnvironment } from './proxy-env.js';
import type { AddressPolicy } from '../../egress/address-policy.js';
import { guardedConnectOptions, urlAddressProblem } from '../../egress/guarded-lookup.js';
import { onAbort } from '../../signals/abort-fanout.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpExchange {
  method: HttpMethod;
  /** Path (prefix included) and query string. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  deadlineMs: number;
  signal?: AbortSignal;
}

/**
 * Why no response came:
 * - connect: no connection was made (refused, DNS failure, unreachable, connect timeout):
 *   the request was never sent.
 * - reset: the connection broke after the request may have been written.
 * - timeout: the deadline passed; the server may have received and acted on the request.
 * - aborted: the caller's signal fired.
 */
export type TransportFailureCause = 'connect' | 'reset' | 'timeout' | 'aborted' | 'other';

export type TransportResult =
  | { type: 'response'; status: number; headers: HeaderBag; text: string }
  | { type: 'failure'; cause: TransportFailureCause; code: string };

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  // The address policy refused the address before connecting (src/egress): nothing was sent.
  'ERR_ADDRESS_NOT_ALLOWED',
]);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED']);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

function errorCode(error: unknown): string {
  // undici sometimes wraps the socket error; the useful code may sit one level down.
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 3; depth += 1) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    current = current.cause;
  }
  return error instanceof Error ? error.name : 'unknown';
}

export function classifyTransportError(code: string): TransportFailureCause {
  if (CONNECT_CODES.has(code)) return 'connect';
  if (RESET_CODES.has(code)) return 'reset';
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  return 'other';
}

/** What the executor needs from a transport (an interface, so tests can script one). */
export interface Transport {
  send(exchange: HttpExchange): Promise<TransportResult>;
}

export class HttpTransport implements Transport {
  private readonly dispatcher: Dispatcher;
  /** Why the origin's own address (an IP literal, localhost) is refused by the address policy. */
  private readonly refusedAddress: string | undefined;

  /**
   * `addressPolicy`: the origin was chosen by a tenant (a PlatformConnection), so every
   * connection's resolved address is checked against it before a byte is sent.
   */
  constructor(
    private readonly origin: string,
    private readonly clock: Clock,
    connections?: number,
    env: ProxyEnvironment = process.env,
    addressPolicy?: AddressPolicy,
  ) {
    const options = {
      connections: connections ?? null,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      // Our own deadline governs; these only stop undici giving up earlier than it.
      headersTimeout: 0,
      bodyTimeout: 0,
    };
    const proxy = proxyFor(new URL(origin), env);
    this.dispatcher = proxy
      ? new ProxyAgent({
          ...options,
          uri: proxy,
          proxyTls: { timeout: 10_000 },
          requestTls: { timeout: 10_000 },
        })
      : new Pool(origin, {
          ...options,
          connect: addressPolicy === undefined ? { timeout: 10_000 } : guardedConnectOptions(addressPolicy),
        });
    this.refusedAddress =
      addressPolicy === undefined ? undefined : urlAddressProblem(new URL(origin), addressPolicy);
  }

  async send(exchange: HttpExchange): Promise<TransportResult> {
    const controller = new AbortController();
    let deadlinePassed = false;
    const timer = this.clock.setTimeout(() => {
      deadlinePassed = true;
      controller.abort();
    }, exchange.deadlineMs);
    // A pass's or a controller's signal is followed by all its calls at once: one listener for
    // them all (signals/abort-fanout.ts).
    const unfollow =
      exchange.signal === undefined || exchange.signal.aborted
        ? undefined
        : onAbort(exchange.signal, () => controller.abort());
    try {
      if (exchange.signal?.aborted) return { type: 'failure', cause: 'aborted', code: 'ABORTED' };
      if (this.refusedAddress !== undefined) {
        return { type: 'failure', cause: 'connect', code: 'ERR_ADDRESS_NOT_ALLOWED' };
      }
      const response = await this.dispatcher.request({
        origin: this.origin,
        method: exchange.method,
        path: exchange.path,
        headers: exchange.headers,
        body: exchange.body ?? null,
        signal: controller.signal,
      });
      const text = await readBoundedText(response.body);
      return { type: 'response', status: response.statusCode, headers: response.headers, text };
    } catch (error) {
      if (deadlinePassed) return { type: 'failure', cause: 'timeout', code: 'DEADLINE' };
      if (exchange.signal?.aborted) return { type: 'failure', cause: 'aborted', code: 'ABORTED' };
      const code = errorCode(error);
      return { type: 'failure', cause: classifyTransportError(code), code };
    } finally {
      this.clock.clearTimeout(timer);
      unfollow?.();
    }
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}
