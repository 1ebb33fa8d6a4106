// Sessions, which the UI calls tracing projects: create (409 on a taken name unless
// `upsert=true`), list (optionally by exact name, as the SDK's readProject asks), read by id.
import { z } from 'zod';
import { HttpError } from '../http/http-error.js';
import { newUuid } from '../http/ids.js';
import { uuidPathParam } from '../http/query-params.js';
import type { Reply } from '../http/reply.js';
import { callerOf, iso, notFound, parseBody, type PlatformContext } from './platform-context.js';
import type { SessionRecord, TraceStore } from './trace-store.js';

const SessionCreate = z.object({
  name: z.string().min(1).max(256),
  description: z.string().nullish(),
  extra: z.record(z.string(), z.unknown()).nullish(),
  reference_dataset_id: z.uuid().nullish(),
  id: z.uuid().nullish(),
});

export class SessionHandlers {
  constructor(private readonly traces: TraceStore) {}

  create = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const request = parseBody(ctx, SessionCreate);
    const existing = this.traces.sessionByName(tenantId, ctx.now, request.name);
    if (existing !== undefined) {
      if (ctx.query.get('upsert') === 'true') return { status: 200, body: existing };
      throw new HttpError(409, { detail: `Session with name ${request.name} already exists` });
    }
    const session = this.ensure(tenantId, ctx.now, request.name, {
      id: (request.id ?? newUuid()).toLowerCase(),
      description: request.description ?? null,
      extra: request.extra ?? {},
      reference_dataset_id: request.reference_dataset_id ?? null,
    });
    return { status: 200, body: session };
  };

  list = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const name = ctx.query.get('name');
    if (name === null) return { status: 200, body: this.traces.sessions(tenantId, ctx.now) };
    // By name through the index: names are unique in a workspace, and the operator looks up
    // each deployment's project this way (copying 100,000 sessions per lookup stalled a fleet).
    const session = this.traces.sessionByName(tenantId, ctx.now, name);
    return { status: 200, body: session === undefined ? [] : [session] };
  };

  get = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const id = uuidPathParam(ctx.params, 'session_id');
    const session = this.traces.sessionById(tenantId, ctx.now, id);
    if (session === undefined) throw notFound('Session');
    return { status: 200, body: session };
  };

  /** The session of that name, created on first use (ingest creates projects by name). */
  ensure(
    tenantId: string,
    now: number,
    name: string,
    fields: Partial<Pick<SessionRecord, 'id' | 'description' | 'extra' | 'reference_dataset_id'>> = {},
  ): SessionRecord {
    const existing = this.traces.sessionByName(tenantId, now, name);
    if (existing !== undefined) return existing;
    const session: SessionRecord = {
      id: fields.id ?? newUuid(),
      name,
      tenant_id: tenantId,
      description: fields.description ?? null,
      extra: fields.extra ?? {},
      start_time: iso(now),
      reference_dataset_id: fields.reference_dataset_id ?? null,
    };
    this.traces.createSession(tenantId, now, session);
    return session;
  }
}
