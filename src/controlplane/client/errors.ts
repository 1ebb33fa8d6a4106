// Errors as values: a kind the caller switches on, and a message safe for events, status
// conditions and info logs. It is safe by construction: built only from the method, the
// route template, the status and the field location and rule of a rejection, never from
// the server's text (which may echo the request, secret values included). The server's
// text travels apart, redacted, in `serverDetail`, for debug logs only.
import type { ValidationError } from '../models/index.js';

interface ErrorBase {
  /**
   * Safe for events, conditions and info logs: method, route template, status, and the
   * field location and rule (`body.name: field required`) or a fixed description of the status.
   */
  message: string;
  /**
   * The server's own text (its `detail`), redacted (the credential and the request's secret
   * values in any encoding, every secret field's value) and cut to 500 characters. For debug
   * logs only: never put it into an event, a status condition or an info log.
   */
  serverDetail?: string;
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
  /** Safe like `message`: the field location and rule, or a fixed description of the status. */
  detail: string;
  /** The 422 body's entries: loc and type as sent (when they are plain field names), msg in our words. */
  validation: ValidationError[];
}

export interface NotFoundError extends ErrorBase {
  kind: 'NotFound';
  status: 404;
  /** Safe like `message`. */
  detail: string;
}

/** 409: re-read and retry. */
export interface ConflictError extends ErrorBase {
  kind: 'Conflict';
  status: 409;
  /** Safe like `message`. */
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
