// What a control-plane route handler gets; it returns a Reply, which the server writes.
import type { Caller } from '../http/api-keys.js';
import { parseJsonBody } from '../http/json-body.js';
import type { Reply } from '../http/reply.js';

export type { Reply } from '../http/reply.js';

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
