// Injected faults for tests: dropped watches, forced 410s, failing requests, latency.
// Shared by the in-process API and the /_emulator/faults HTTP endpoint.
import { ApiError, badRequest } from './api-error.js';
import { isJsonObject } from './kube-object.js';

export interface FailureSpec {
  rate: number;
  statuses: number[];
}

const REASONS: Record<number, string> = {
  429: 'TooManyRequests',
  500: 'InternalError',
  502: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export class FaultState {
  /** Watch requests still to answer with 410; Infinity means until clear(). */
  private expireRemaining = 0;
  private failure: FailureSpec | undefined;
  latencyMs = 0;

  constructor(
    private readonly dropAllWatches: () => void,
    private readonly random: () => number = Math.random,
  ) {}

  dropWatches(): void {
    this.dropAllWatches();
  }

  expireWatches(count?: number): void {
    if (count !== undefined && (!Number.isInteger(count) || count < 0)) throw badRequest('expireWatches: count must be a non-negative integer');
    this.expireRemaining = count ?? Number.POSITIVE_INFINITY;
  }

  failRequests(spec: FailureSpec): void {
    if (!(spec.rate >= 0 && spec.rate <= 1)) throw badRequest('failRequests.rate: must be a number from 0 to 1');
    if (!Array.isArray(spec.statuses) || spec.statuses.length === 0 || spec.statuses.some((s) => !Number.isInteger(s) || s < 400 || s > 599)) {
      throw badRequest('failRequests.statuses: must be a non-empty list of HTTP error codes (400-599)');
    }
    this.failure = { rate: spec.rate, statuses: [...spec.statuses] };
  }

  setLatency(ms: number): void {
    if (!(Number.isFinite(ms) && ms >= 0)) throw badRequest('latencyMs: must be a non-negative number');
    this.latencyMs = ms;
  }

  clear(): void {
    this.expireRemaining = 0;
    this.failure = undefined;
    this.latencyMs = 0;
  }

  /** Whether this watch request must be answered with 410 (consumes one). */
  takeExpiredWatch(): boolean {
    if (this.expireRemaining <= 0) return false;
    this.expireRemaining -= 1;
    return true;
  }

  /** The injected failure for this (non-watch) request, if the dice say so. */
  injectedFailure(): ApiError | undefined {
    const failure = this.failure;
    if (!failure || this.random() >= failure.rate) return undefined;
    const code = failure.statuses[Math.floor(this.random() * failure.statuses.length)] ?? 500;
    const reason = REASONS[code] ?? 'InternalError';
    const details = code === 429 || code === 503 ? { retryAfterSeconds: 1 } : undefined;
    return new ApiError(code, reason, `injected fault: ${reason} (${code})`, details);
  }

  describe(): Record<string, unknown> {
    return {
      expireWatches: this.expireRemaining === Number.POSITIVE_INFINITY ? 'all' : this.expireRemaining,
      failRequests: this.failure ?? null,
      latencyMs: this.latencyMs,
    };
  }

  /** Applies a JSON body of the HTTP endpoint: any of dropWatches, expireWatches, failRequests, latencyMs, clear. */
  applyRequest(body: unknown): void {
    if (!isJsonObject(body)) throw badRequest('faults: body must be a JSON object');
    const known = new Set(['clear', 'dropWatches', 'expireWatches', 'failRequests', 'latencyMs']);
    for (const key of Object.keys(body)) if (!known.has(key)) throw badRequest(`faults.${key}: unknown fault; known: ${[...known].join(', ')}`);
    if (body['clear'] === true) this.clear();
    if (body['dropWatches'] === true) this.dropWatches();
    const expire = body['expireWatches'];
    if (expire === true) this.expireWatches();
    else if (typeof expire === 'number') this.expireWatches(expire);
    else if (expire !== undefined && expire !== false) throw badRequest('faults.expireWatches: must be true or a count');
    const fail = body['failRequests'];
    if (fail !== undefined) {
      if (fail === null) this.failure = undefined;
      else if (isJsonObject(fail)) this.failRequests({ rate: Number(fail['rate']), statuses: fail['statuses'] as number[] });
      else throw badRequest('faults.failRequests: must be {"rate": 0..1, "statuses": [codes]} or null');
    }
    if (body['latencyMs'] !== undefined) this.setLatency(Number(body['latencyMs']));
  }
}

export function retryAfterHeader(error: ApiError): Record<string, string> {
  const seconds = error.details?.retryAfterSeconds;
  return seconds === undefined ? {} : { 'Retry-After': String(seconds) };
}
