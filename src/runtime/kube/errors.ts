// One error type for every failed API call, carrying what callers branch on: the HTTP status
// (404, 409, 410, 429, 5xx), the Status reason, and the server's Retry-After. Messages quote
// the server's Status message and the request path only, never request bodies or headers,
// so that a Secret's data or a bearer token cannot leak through an error.
import type { KubeStatus } from './objects.js';

export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';

  constructor(
    readonly statusCode: number,
    readonly reason: string,
    message: string,
    readonly retryAfterSeconds?: number,
    readonly status?: KubeStatus,
  ) {
    super(message);
  }

  static fromStatus(
    method: string,
    path: string,
    statusCode: number,
    body: unknown,
    retryAfter?: string,
  ): KubeApiError {
    const status = isStatus(body) ? body : undefined;
    const reason = status?.reason ?? (statusCode === 0 ? 'NetworkError' : `HTTP${statusCode}`);
    const detail = status?.message ?? `HTTP ${statusCode}`;
    const seconds = retryAfter !== undefined && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined;
    return new KubeApiError(statusCode, reason, `${method} ${path}: ${detail}`, seconds, status);
  }
}

function isStatus(body: unknown): body is KubeStatus {
  return typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'Status';
}

export function isNotFound(error: unknown): boolean {
  return error instanceof KubeApiError && error.statusCode === 404;
}

export function isConflict(error: unknown): boolean {
  return error instanceof KubeApiError && error.statusCode === 409;
}

export function isAlreadyExists(error: unknown): boolean {
  return error instanceof KubeApiError && error.statusCode === 409 && error.reason === 'AlreadyExists';
}

/** 410 Gone / Expired: the requested resourceVersion is too old; the caller must relist. */
export function isGone(error: unknown): boolean {
  return (
    error instanceof KubeApiError &&
    (error.statusCode === 410 || error.reason === 'Expired' || error.reason === 'Gone')
  );
}
