// The v2 run routes the SDK's generated client uses (`client.runs.query()`,
// `client.runs.retrieve()`): `POST /api/v2/runs/query` ({project_ids, ids, trace_id, is_root,
// filter, min/max_start_time, selects, page_size, cursor} -> {items, next_cursor}) and
// `GET /api/v2/runs/{run_id}?project_id=`. A run shows `id` plus the fields `selects` names.
import { z } from 'zod';
import { validationError } from '../http/http-error.js';
import { uuidPathParam } from '../http/query-params.js';
import type { Reply } from '../http/reply.js';
import { callerOf, notFound, parseBody, parseTime, type PlatformContext } from './platform-context.js';
import { selectRuns } from './run-selection.js';
import { runMetadata, type RunRecord, type TraceStore } from './trace-store.js';

const DAY_MS = 86_400_000;
const MAX_PAGE_SIZE = 100;

const RunQueryV2 = z.looseObject({
  project_ids: z.array(z.uuid()).min(1),
  ids: z.array(z.uuid()).nullish(),
  trace_id: z.uuid().nullish(),
  is_root: z.boolean().nullish(),
  filter: z.string().nullish(),
  min_start_time: z.string().nullish(),
  max_start_time: z.string().nullish(),
  selects: z.array(z.string()).nullish(),
  page_size: z.number().int().min(1).max(MAX_PAGE_SIZE).nullish(),
  cursor: z.string().nullish(),
});

const FIELDS: Record<string, (run: RunRecord) => unknown> = {
  ID: (run) => run.id,
  NAME: (run) => run.name,
  RUN_TYPE: (run) => run.run_type,
  STATUS: (run) => run.status,
  START_TIME: (run) => run.start_time,
  END_TIME: (run) => run.end_time,
  ERROR: (run) => run.error,
  EXTRA: (run) => run.extra,
  METADATA: (run) => runMetadata(run),
  INPUTS: (run) => run.inputs,
  OUTPUTS: (run) => run.outputs,
  PARENT_RUN_IDS: (run) => (run.parent_run_id === null ? [] : [run.parent_run_id]),
  PROJECT_ID: (run) => run.session_id,
  TRACE_ID: (run) => run.trace_id,
  DOTTED_ORDER: (run) => run.dotted_order,
  IS_ROOT: (run) => run.parent_run_id === null,
  TAGS: (run) => run.tags,
};

function selected(run: RunRecord, selects: readonly string[]): Record<string, unknown> {
  const view: Record<string, unknown> = { id: run.id };
  for (const select of selects) view[select.toLowerCase()] = FIELDS[select]?.(run) ?? null;
  return view;
}

export class RunQueryV2Handlers {
  constructor(private readonly traces: TraceStore) {}

  query = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const query = parseBody(ctx, RunQueryV2);
    const maxStart =
      query.max_start_time == null ? ctx.now : parseTime(query.max_start_time, ['body', 'max_start_time']);
    const minStart =
      query.min_start_time == null
        ? maxStart - DAY_MS
        : parseTime(query.min_start_time, ['body', 'min_start_time']);
    const page = selectRuns(
      this.traces.runs(tenantId, ctx.now),
      {
        sessionIds: query.project_ids,
        ids: query.ids,
        traceId: query.trace_id,
        isRoot: query.is_root,
        filter: query.filter,
        minStart,
        maxStart,
      },
      query.cursor,
      query.page_size ?? MAX_PAGE_SIZE,
    );
    const selects = query.selects ?? [];
    return {
      status: 200,
      body: { items: page.runs.map((run) => selected(run, selects)), next_cursor: page.next ?? '' },
    };
  };

  retrieve = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const runId = uuidPathParam(ctx.params, 'run_id');
    const projectId = ctx.query.get('project_id');
    if (projectId === null) {
      throw validationError([{ loc: ['query', 'project_id'], msg: 'Field required', type: 'missing' }]);
    }
    const run = this.traces.run(tenantId, ctx.now, runId);
    if (run === undefined || run.session_id !== projectId.toLowerCase()) throw notFound('Run');
    return { status: 200, body: selected(run, ctx.query.getAll('selects')) };
  };
}
