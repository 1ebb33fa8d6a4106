// Run query (`POST /runs/query`, the route the official SDKs' listRuns uses) and trace delete
// (`POST /runs/delete`). A query filters by session, run ids, trace, root-ness and a filter
// expression, and pages with an opaque cursor. A delete is only scheduled (see TraceStore).
import { z } from 'zod';
import { HttpError } from '../http/http-error.js';
import type { Reply } from '../http/reply.js';
import { callerOf, parseBody, type PlatformContext } from './platform-context.js';
import { runToWire } from './run-ingest-handlers.js';
import { selectRuns } from './run-selection.js';
import type { TraceStore } from './trace-store.js';

export const MAX_TRACE_IDS_PER_DELETE = 1000;
const MAX_QUERY_LIMIT = 100;

const RunQuery = z.looseObject({
  session: z.array(z.uuid()).nullish(),
  id: z.array(z.uuid()).nullish(),
  trace: z.uuid().nullish(),
  is_root: z.boolean().nullish(),
  filter: z.string().nullish(),
  limit: z.number().int().min(1).max(MAX_QUERY_LIMIT).nullish(),
  cursor: z.string().nullish(),
  select: z.array(z.string()).nullish(),
});

const TraceDeleteByIds = z.strictObject({
  trace_ids: z.array(z.uuid()).min(1).max(MAX_TRACE_IDS_PER_DELETE),
  session_id: z.uuid(),
});
const TraceDeleteByMetadata = z.strictObject({
  metadata: z
    .record(z.string(), z.unknown())
    .refine((m) => Object.keys(m).length > 0, 'must hold at least one pair'),
});

export class RunQueryHandlers {
  constructor(private readonly traces: TraceStore) {}

  query = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const query = parseBody(ctx, RunQuery);
    const hasScope =
      (query.session?.length ?? 0) > 0 ||
      (query.id?.length ?? 0) > 0 ||
      query.trace != null ||
      query.filter != null;
    if (!hasScope)
      throw new HttpError(400, { detail: 'At least one of session, id, trace or filter is required' });
    const page = selectRuns(
      this.traces.runs(tenantId, ctx.now),
      {
        sessionIds: query.session,
        ids: query.id,
        traceId: query.trace,
        isRoot: query.is_root,
        filter: query.filter,
      },
      query.cursor,
      query.limit ?? MAX_QUERY_LIMIT,
    );
    return {
      status: 200,
      body: { runs: page.runs.map(runToWire), cursors: { next: page.next, prev: null } },
    };
  };

  delete = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    // Two forms; which one is meant decides which rules apply, so that the error names the field.
    const shape = parseBody(ctx, z.record(z.string(), z.unknown()));
    const byMetadata = 'metadata' in shape && !('trace_ids' in shape) && !('session_id' in shape);
    const request = byMetadata ? parseBody(ctx, TraceDeleteByMetadata) : parseBody(ctx, TraceDeleteByIds);
    if ('trace_ids' in request) {
      if (this.traces.sessionById(tenantId, ctx.now, request.session_id) === undefined) {
        throw new HttpError(404, { detail: `Session ${request.session_id} not found` });
      }
      this.traces.scheduleDeletion(tenantId, ctx.now, {
        form: 'ids',
        sessionId: request.session_id.toLowerCase(),
        traceIds: request.trace_ids.map((id) => id.toLowerCase()),
      });
    } else {
      this.traces.scheduleDeletion(tenantId, ctx.now, { form: 'metadata', metadata: request.metadata });
    }
    return { status: 202, body: {} };
  };
}
