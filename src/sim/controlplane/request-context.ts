// What a route handler gets and what it returns; the server turns a Reply into a response.
import type { Caller } from './auth.js';
import { parseJsonBody } from './json-body.js';

export interface Reply {
  status: number;
  /** JSON body; undefined for an empty body (204). */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RequestContext {
  params: Record<string, string>;
  query: URLSearchParams;
  /** The clock's time when the request arrived, in ms since the epoch. */
  now: number;
  rawBody: string;
}

export interface ApiContext extends RequestContext {
  caller: Caller;
}

export type Handler<C extends RequestContext> = (ctx: C) => Reply;

/** The request body as JSON; throws 422 (missing or json_invalid) otherwise. */
export function jsonBody(ctx: RequestContext): unknown {
  return parseJsonBody(ctx.rawBody);
}
