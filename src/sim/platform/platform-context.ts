// What a platform route handler gets, and the helpers every handler uses to read its body the
// way the service does: FastAPI-style 422 with `loc` for schema errors, and nothing changed.
import type { z } from 'zod';
import type { Caller } from '../http/api-keys.js';
import { HttpError, validationError } from '../http/http-error.js';
import { parseJsonBody } from '../http/json-body.js';
import { issuesToValidationErrors } from '../http/validation-errors.js';
import type { Reply } from '../http/reply.js';

export interface PlatformContext {
  params: Record<string, string>;
  query: URLSearchParams;
  now: number;
  body: Buffer;
  contentType: string;
  /** Undefined only on the unauthenticated routes (/ok, /info). */
  caller: Caller | undefined;
}

export type PlatformHandler = (ctx: PlatformContext) => Reply;

export function callerOf(ctx: PlatformContext): Caller {
  if (ctx.caller === undefined) throw new HttpError(401, { detail: 'Missing API key: send X-Api-Key' });
  return ctx.caller;
}

/** The JSON body checked against `schema`; 422 with the failing fields otherwise. */
export function parseBody<S extends z.ZodType>(ctx: PlatformContext, schema: S): z.infer<S> {
  const json = parseJsonBody(ctx.body.toString('utf8'));
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw validationError(issuesToValidationErrors(parsed.error.issues, json, ['body']));
  return parsed.data;
}

/** One part of a multipart body checked against `schema`; 422 at `loc` otherwise. */
export function checkedPart<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  loc: (string | number)[],
): z.infer<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw validationError(issuesToValidationErrors(parsed.error.issues, raw, loc));
}

/** A time parameter (ISO 8601, or epoch ms as the SDK sends start_time) as clock ms. */
export function parseTime(value: string | number, loc: (string | number)[]): number {
  const ms = typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms)) {
    throw validationError([
      { loc, msg: 'Input should be a valid datetime', type: 'datetime_from_date_parsing' },
    ]);
  }
  return ms;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function notFound(what: string): HttpError {
  return new HttpError(404, { detail: `${what} not found` });
}
