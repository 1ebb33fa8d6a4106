// Trace ingest, in the three forms the official SDKs send: one run (`POST /runs`), a JSON
// batch (`POST /runs/batch`: `{post, patch}`), and the multipart batch the SDK uses by default
// (`POST /runs/multipart`: parts `post.<id>`, `post.<id>.inputs`, `patch.<id>.outputs`, ...).
// A batch is checked whole before anything is stored, so a bad one changes nothing.
import { z } from 'zod';
import { HttpError } from '../http/http-error.js';
import { newUuid } from '../http/ids.js';
import { uuidPathParam } from '../http/query-params.js';
import type { Reply } from '../http/reply.js';
import { foldJsonPart, parseMultipart, unknownPart } from './multipart.js';
import {
  callerOf,
  checkedPart,
  iso,
  notFound,
  parseBody,
  parseTime,
  type PlatformContext,
} from './platform-context.js';
import type { SessionHandlers } from './session-handlers.js';
import type { RunRecord, TraceStore } from './trace-store.js';

const JsonObject = z.record(z.string(), z.unknown());
const Time = z.union([z.string(), z.number()]);

const RunFields = {
  name: z.string(),
  run_type: z.string(),
  start_time: Time,
  end_time: Time.nullish(),
  inputs: JsonObject.nullish(),
  outputs: JsonObject.nullish(),
  extra: JsonObject.nullish(),
  error: z.string().nullish(),
  session_id: z.uuid().nullish(),
  session_name: z.string().min(1).nullish(),
  trace_id: z.uuid().nullish(),
  parent_run_id: z.uuid().nullish(),
  dotted_order: z.string().nullish(),
  tags: z.array(z.string()).nullish(),
  status: z.string().nullish(),
};

const RunCreate = z.looseObject({ id: z.uuid().nullish(), ...RunFields, start_time: Time.nullish() });
const RunUpdate = z.looseObject({ id: z.uuid(), ...z.object(RunFields).partial().shape });
const RunBatch = z.object({ post: z.array(RunCreate).nullish(), patch: z.array(RunUpdate).nullish() });

type RunCreate = z.infer<typeof RunCreate>;
type RunUpdate = z.infer<typeof RunUpdate>;

const ACCEPTED: Reply = { status: 202, body: {} };

export class RunIngestHandlers {
  constructor(
    private readonly traces: TraceStore,
    private readonly sessions: SessionHandlers,
  ) {}

  createOne = (ctx: PlatformContext): Reply => {
    const run = parseBody(ctx, RunCreate);
    this.store(ctx, [run], []);
    return ACCEPTED;
  };

  patchOne = (ctx: PlatformContext): Reply => {
    const id = uuidPathParam(ctx.params, 'run_id');
    const update = parseBody(ctx, RunUpdate.partial({ id: true }));
    this.store(ctx, [], [{ ...update, id }]);
    return ACCEPTED;
  };

  batch = (ctx: PlatformContext): Reply => {
    const batch = parseBody(ctx, RunBatch);
    this.store(ctx, batch.post ?? [], batch.patch ?? []);
    return ACCEPTED;
  };

  multipart = (ctx: PlatformContext): Reply => {
    const posts = new Map<string, Record<string, unknown>>();
    const patches = new Map<string, Record<string, unknown>>();
    for (const part of parseMultipart(ctx.contentType, ctx.body)) {
      const [kind, id, field, ...rest] = part.name.split('.');
      // Feedback and attachments are accepted and not modelled.
      if (kind === 'feedback' || kind === 'attachment') continue;
      const target = kind === 'post' ? posts : kind === 'patch' ? patches : undefined;
      if (target === undefined || id === undefined || rest.length > 0) {
        throw unknownPart(part);
      }
      foldJsonPart(target, part, id, field);
    }
    const creates = [...posts.entries()].map(([id, raw]) =>
      checkedPart(RunCreate, raw, ['body', `post.${id}`]),
    );
    const updates = [...patches.entries()].map(([id, raw]) =>
      checkedPart(RunUpdate, raw, ['body', `patch.${id}`]),
    );
    this.store(ctx, creates, updates);
    return ACCEPTED;
  };

  get = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const run = this.traces.run(tenantId, ctx.now, uuidPathParam(ctx.params, 'run_id'));
    if (run === undefined) throw notFound('Run');
    return { status: 200, body: runToWire(run) };
  };

  /** Checks the whole batch (sessions, patch targets, times) before storing or creating anything. */
  private store(ctx: PlatformContext, creates: RunCreate[], updates: RunUpdate[]): void {
    const { tenantId } = callerOf(ctx);
    const createdIds = new Set<string>();
    for (const [index, run] of creates.entries()) {
      if (
        run.session_id != null &&
        this.traces.sessionById(tenantId, ctx.now, run.session_id) === undefined
      ) {
        throw new HttpError(404, { detail: `Session ${run.session_id} not found (post[${index}])` });
      }
      if (run.start_time != null) parseTime(run.start_time, ['body', 'post', index, 'start_time']);
      if (run.end_time != null) parseTime(run.end_time, ['body', 'post', index, 'end_time']);
      if (run.id != null) createdIds.add(run.id.toLowerCase());
    }
    for (const [index, update] of updates.entries()) {
      const id = update.id.toLowerCase();
      if (!createdIds.has(id) && this.traces.run(tenantId, ctx.now, id) === undefined) {
        throw new HttpError(404, { detail: `Run ${update.id} not found (patch[${index}])` });
      }
      if (update.end_time != null) parseTime(update.end_time, ['body', 'patch', index, 'end_time']);
    }
    const records = creates.map((run, index) =>
      this.toRecord(tenantId, ctx.now, run, ['body', 'post', index]),
    );
    for (const [index, update] of updates.entries()) {
      const id = update.id.toLowerCase();
      const base = records.find((r) => r.id === id) ?? this.traces.run(tenantId, ctx.now, id);
      if (base !== undefined) records.push(applyUpdate(base, update, ['body', 'patch', index]));
    }
    for (const record of records) this.traces.putRun(tenantId, ctx.now, record);
  }

  private toRecord(tenantId: string, now: number, run: RunCreate, loc: (string | number)[]): RunRecord {
    // Ids are stored lowercase: queries and deletes compare them case-blind, as uuids are.
    const id = (run.id ?? newUuid()).toLowerCase();
    const sessionId = run.session_id ?? this.sessions.ensure(tenantId, now, run.session_name ?? 'default').id;
    return {
      id,
      trace_id: (run.trace_id ?? id).toLowerCase(),
      session_id: sessionId.toLowerCase(),
      parent_run_id: run.parent_run_id?.toLowerCase() ?? null,
      name: run.name,
      run_type: run.run_type,
      start_time: iso(run.start_time == null ? now : parseTime(run.start_time, [...loc, 'start_time'])),
      end_time: run.end_time == null ? null : iso(parseTime(run.end_time, [...loc, 'end_time'])),
      inputs: run.inputs ?? null,
      outputs: run.outputs ?? null,
      extra: run.extra ?? {},
      error: run.error ?? null,
      dotted_order: run.dotted_order ?? null,
      tags: run.tags ?? [],
      status: run.status ?? (run.end_time == null ? 'pending' : run.error != null ? 'error' : 'success'),
      ingested_at: now,
    };
  }
}

function applyUpdate(base: RunRecord, update: RunUpdate, loc: (string | number)[]): RunRecord {
  const endTime =
    update.end_time == null ? base.end_time : iso(parseTime(update.end_time, [...loc, 'end_time']));
  const error = update.error ?? base.error;
  return {
    ...base,
    end_time: endTime,
    outputs: update.outputs ?? base.outputs,
    inputs: update.inputs ?? base.inputs,
    extra: update.extra == null ? base.extra : { ...base.extra, ...update.extra },
    error,
    tags: update.tags ?? base.tags,
    status: update.status ?? (endTime === null ? base.status : error !== null ? 'error' : 'success'),
  };
}

/** The run as the API shows it (the emulator's bookkeeping left out). */
export function runToWire(run: RunRecord): Record<string, unknown> {
  const { ingested_at: _ingestedAt, ...wire } = run;
  return { ...wire, reference_example_id: null, events: [], child_run_ids: null };
}
