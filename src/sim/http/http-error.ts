// An error that already knows its HTTP answer. Handlers throw it; the server writes it.
import type { ValidationError } from './validation-error.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(
      typeof body === 'object' && body !== null && 'detail' in body ? String(body.detail) : `HTTP ${status}`,
    );
  }
}

/** 400 and the other `{"detail": "..."}` answers. */
export function detailError(status: number, detail: string, headers?: Record<string, string>): HttpError {
  return new HttpError(status, { detail }, headers);
}

/** 422 HTTPValidationError. */
export function validationError(errors: ValidationError[]): HttpError {
  return new HttpError(422, { detail: errors });
}
