// Errors as values: a kind the caller switches on, and a message safe to log (it never holds
// the API key, a secret value or a request body).
import type { ValidationError } from '../models/index.js';

interface ErrorBase {
  /** Safe to log: method, route template, status, the server's detail with known secrets redacted. */
  message: string;
  method: string;
  route: string;
  /** How many requests were sent (0: refused locally, nothing sent). */
  attempts: number;
}

/** Worth retrying later: 5xx after retries, timeouts, resets, a response of an unexpected shape. */
export interface TransientError extends ErrorBase {
  kind: 'Transient';
  status?: number;
  /**
   * The request may have reached the server and been acted on (a timeout or a reset after it
   * was written). For a create the caller should look the deployment up before creating again.
   */
  unclear: boolean;
}

/** Over the rate limit (locally or per a 429): try again after retryAfterMs. */
export interface ThrottledError extends ErrorBase {
  kind: 'Throttled';
  retryAfterMs: number;
}

/** The request must change: 400/401/403/422 and other 4xx, or rejected locally as invalid. */
export interface TerminalError extends ErrorBase {
  kind: 'Terminal';
  /** The HTTP status; 0 when the client refused the request before sending it. */
  status: number;
  detail: string;
  /** The 422 body's entries (loc, msg, type); empty otherwise. */
  validation: ValidationError[];
}

export interface NotFoundError extends ErrorBase {
  kind: 'NotFound';
  status: 404;
  detail: string;
}

/** 409: re-read and retry. */
export interface ConflictError extends ErrorBase {
  kind: 'Conflict';
  status: 409;
  detail: string;
}

export type ControlPlaneError =
  TransientError | ThrottledError | TerminalError | NotFoundError | ConflictError;
export type ControlPlaneErrorKind = ControlPlaneError['kind'];

export type Result<T> = { ok: true; value: T } | { ok: false; error: ControlPlaneError };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail<T>(error: ControlPlaneError): Result<T> {
  return { ok: false, error };
}
