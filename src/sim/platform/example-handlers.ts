// Examples: upload (the SDK's multipart route and the JSON ones), update (the SDK's multipart
// PATCH, one new version per call), list by dataset as of a
// version, search by metadata across datasets (`GET /examples?as_of=` with a JSON body or a
// `metadata` query parameter; ANY pair), read one as of a version, and delete: soft (the SDK's
// `DELETE /examples/{id}` and `DELETE /examples?example_ids=`) or either way through
// `POST /v1/platform/datasets/examples/delete`, whose errors are `{error, details}`.
import { z } from 'zod';
import { HttpError, validationError } from '../http/http-error.js';
import { isUuid, newUuid } from '../http/ids.js';
import { uuidPathParam } from '../http/query-params.js';
import type { Reply } from '../http/reply.js';
import { jsonNestingError, parseJsonBody } from '../http/json-body.js';
import type { DatasetStore, ExampleChange, ExampleRecord, ExampleState, ExampleView } from './dataset-store.js';
import { stateAt } from './dataset-store.js';
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
import { hasAnyPair } from './trace-store.js';

export const MAX_EXAMPLE_IDS_PER_DELETE = 1000;
const JsonObject = z.record(z.string(), z.unknown());

const ExampleFields = z.looseObject({
  id: z.uuid().nullish(),
  created_at: z.string().nullish(),
  inputs: JsonObject.nullish(),
  outputs: JsonObject.nullish(),
  metadata: JsonObject.nullish(),
  split: z.union([z.string(), z.array(z.string())]).nullish(),
});
const ExampleCreate = ExampleFields.extend({ dataset_id: z.uuid() });
/** An update's own part: the SDK sends only what changes (metadata, split) beside inputs/outputs parts. */
const ExampleUpdate = z.looseObject({
  id: z.uuid(),
  inputs: JsonObject.nullish(),
  outputs: JsonObject.nullish(),
  metadata: JsonObject.nullish(),
  split: z.union([z.string(), z.array(z.string())]).nullish(),
});
/** Parts of an update the emulator reads; attachments are accepted and not stored (as on upload). */
const UPDATE_FIELDS = new Set(['inputs', 'outputs', 'attachments_operations']);

function exampleToWire(view: ExampleView): Record<string, unknown> {
  return {
    id: view.example.id,
    dataset_id: view.example.dataset_id,
    inputs: view.state.inputs,
    outputs: view.state.outputs,
    metadata: view.state.metadata,
    created_at: iso(view.example.created_at),
    modified_at: iso(view.state.at),
    source_run_id: null,
    attachment_urls: null,
  };
}

/** `{error, details}`: the shape of the platform service's errors. */
function platformError(status: number, error: string, details: string): HttpError {
  return new HttpError(status, { error, details });
}

export class ExampleHandlers {
  constructor(private readonly datasets: DatasetStore) {}

  upload = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const datasetId = uuidPathParam(ctx.params, 'dataset_id');
    if (this.datasets.dataset(tenantId, datasetId) === undefined) throw notFound('Dataset');
    const drafts = new Map<string, Record<string, unknown>>();
    for (const part of parseMultipart(ctx.contentType, ctx.body)) {
      const [id = '', field, ...rest] = part.name.split('.');
      if (field === 'attachment') continue;
      if (
        !isUuid(id) ||
        rest.length > 0 ||
        (field !== undefined && field !== 'inputs' && field !== 'outputs')
      ) {
        throw unknownPart(part);
      }
      foldJsonPart(drafts, part, id, field);
    }
    const checked = [...drafts.values()].map((draft, index) =>
      checkedPart(ExampleFields, draft, ['body', index]),
    );
    const ids = this.store(
      tenantId,
      ctx.now,
      checked.map((draft) => ({ ...draft, dataset_id: datasetId })),
    );
    return { status: 201, body: { example_ids: ids, count: ids.length } };
  };

  /**
   * The SDK's updateExample(s): a multipart body, one `<id>` part per example (metadata, split)
   * and `<id>.inputs` / `<id>.outputs` parts. Every example must be in the dataset and not
   * deleted, or nothing changes (404). Each one gets a new version stamped now.
   */
  update = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const datasetId = uuidPathParam(ctx.params, 'dataset_id');
    if (this.datasets.dataset(tenantId, datasetId) === undefined) throw notFound('Dataset');
    const drafts = new Map<string, Record<string, unknown>>();
    for (const part of parseMultipart(ctx.contentType, ctx.body)) {
      const [id = '', field, ...rest] = part.name.split('.');
      if (field === 'attachment') continue;
      if (!isUuid(id) || rest.length > 0 || (field !== undefined && !UPDATE_FIELDS.has(field))) {
        throw unknownPart(part);
      }
      foldJsonPart(drafts, part, id.toLowerCase(), field);
    }
    const changes: ExampleChange[] = [...drafts.values()].map((draft, index) => {
      const update = checkedPart(ExampleUpdate, draft, ['body', index]);
      const id = update.id.toLowerCase();
      const example = this.datasets.example(tenantId, id);
      const current = example?.history[example.history.length - 1];
      if (example === undefined || example.dataset_id !== datasetId || current === undefined || current.deleted) {
        throw new HttpError(404, { detail: `Example ${id} not found in dataset ${datasetId}` });
      }
      const fields: ExampleChange['fields'] = {};
      if (update.inputs != null) fields.inputs = update.inputs;
      if (update.outputs != null) fields.outputs = update.outputs;
      if (update.metadata != null) fields.metadata = update.metadata;
      if (update.split != null) fields.split = Array.isArray(update.split) ? update.split : [update.split];
      return { id, fields };
    });
    this.datasets.update(tenantId, changes, ctx.now);
    const ids = changes.map((change) => change.id);
    return { status: 200, body: { example_ids: ids, count: ids.length } };
  };

  createOne = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const request = parseBody(ctx, ExampleCreate);
    const [id = ''] = this.store(tenantId, ctx.now, [request]);
    return { status: 200, body: this.view(tenantId, id, ctx.now) };
  };

  createMany = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const requests = parseBody(ctx, z.array(ExampleCreate));
    const ids = this.store(tenantId, ctx.now, requests);
    return { status: 200, body: ids.map((id) => this.view(tenantId, id, ctx.now)) };
  };

  list = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const datasetText = ctx.query.get('dataset');
    const asOfText = ctx.query.get('as_of');
    const metadata = this.metadataFilter(ctx);
    if (datasetText === null && asOfText === null) {
      throw validationError([
        {
          loc: ['query', 'as_of'],
          msg: 'Field required: a search across datasets needs as_of',
          type: 'missing',
        },
      ]);
    }
    const asOf =
      asOfText === null || asOfText === 'latest' ? ctx.now : parseTime(asOfText, ['query', 'as_of']);
    let views: ExampleView[];
    if (datasetText === null) {
      views =
        metadata === undefined
          ? this.datasets.visibleAt(tenantId, asOf).filter((v) => v.example.created_at < asOf)
          : this.datasets.search(tenantId, asOf, metadata);
    } else {
      const datasetId = uuidPathParam({ dataset: datasetText }, 'dataset');
      if (this.datasets.dataset(tenantId, datasetId) === undefined) throw notFound('Dataset');
      views = this.datasets.visibleAt(tenantId, asOf, datasetId);
      if (metadata !== undefined) views = views.filter((v) => hasAnyPair(v.state.metadata ?? {}, metadata));
    }
    const ids = ctx.query.getAll('id');
    if (ids.length > 0) views = views.filter((v) => ids.includes(v.example.id));
    const offset = nonNegative(ctx.query.get('offset'), 'offset', 0);
    const limit = nonNegative(ctx.query.get('limit'), 'limit', 100);
    return { status: 200, body: views.slice(offset, offset + limit).map(exampleToWire) };
  };

  get = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const asOfText = ctx.query.get('as_of');
    const asOf =
      asOfText === null || asOfText === 'latest' ? ctx.now : parseTime(asOfText, ['query', 'as_of']);
    return { status: 200, body: this.view(tenantId, uuidPathParam(ctx.params, 'example_id'), asOf) };
  };

  softDeleteOne = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const id = uuidPathParam(ctx.params, 'example_id');
    if (this.datasets.delete(tenantId, [id], false, ctx.now).length === 0) throw notFound('Example');
    return { status: 200, body: {} };
  };

  softDeleteMany = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const ids = ctx.query.getAll('example_ids');
    const bad = ids.findIndex((id) => !isUuid(id));
    if (ids.length === 0 || bad >= 0) {
      throw validationError([
        {
          loc: ['query', 'example_ids', Math.max(bad, 0)],
          msg: 'Input should be a list of UUIDs',
          type: 'uuid_parsing',
        },
      ]);
    }
    this.datasets.delete(
      tenantId,
      ids.map((id) => id.toLowerCase()),
      false,
      ctx.now,
    );
    return { status: 200, body: {} };
  };

  /** The platform route: `{example_ids (1..1000), hard_delete}` answered with `{count, example_ids}`. */
  deleteMany = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    let json: unknown;
    try {
      json = parseJsonBody(ctx.body.toString('utf8'));
    } catch {
      throw platformError(400, 'invalid request body', 'the body must be a JSON object');
    }
    const parsed = z
      .strictObject({
        example_ids: z.array(z.uuid()).min(1).max(MAX_EXAMPLE_IDS_PER_DELETE),
        hard_delete: z.boolean().optional(),
      })
      .safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = (issue?.path ?? []).map(String).join('.') || 'body';
      throw platformError(400, 'invalid request body', `${field}: ${issue?.message ?? 'invalid'}`);
    }
    const ids = parsed.data.example_ids.map((id) => id.toLowerCase());
    const deleted = this.datasets.delete(tenantId, ids, parsed.data.hard_delete === true, ctx.now);
    return { status: 200, body: { count: deleted.length, example_ids: deleted } };
  };

  private metadataFilter(ctx: PlatformContext): Record<string, unknown> | undefined {
    const fromQuery = ctx.query.get('metadata');
    if (fromQuery !== null) {
      const tooDeep = jsonNestingError(fromQuery, ['query', 'metadata']);
      if (tooDeep !== undefined) throw tooDeep;
      const parsed = JsonObject.safeParse(safeJson(fromQuery));
      if (!parsed.success) {
        throw validationError([
          { loc: ['query', 'metadata'], msg: 'Input should be a JSON object', type: 'json_invalid' },
        ]);
      }
      return parsed.data;
    }
    if (ctx.body.length === 0) return undefined;
    return parseBody(ctx, z.object({ metadata: JsonObject })).metadata;
  }

  /** Checks every draft (dataset, id, time) before storing any, so a bad one stores nothing. */
  private store(
    tenantId: string,
    now: number,
    drafts: readonly (z.infer<typeof ExampleFields> & { dataset_id: string })[],
  ): string[] {
    const seen = new Set<string>();
    const records: ExampleRecord[] = drafts.map((draft, index) => {
      if (this.datasets.dataset(tenantId, draft.dataset_id) === undefined) throw notFound('Dataset');
      const id = (draft.id ?? newUuid()).toLowerCase();
      if (seen.has(id) || this.datasets.example(tenantId, id) !== undefined) {
        throw new HttpError(409, { detail: `Example ${id} already exists` });
      }
      seen.add(id);
      const createdAt =
        draft.created_at == null
          ? now
          : Math.min(now, parseTime(draft.created_at, ['body', index, 'created_at']));
      const split = draft.split == null ? ['base'] : Array.isArray(draft.split) ? draft.split : [draft.split];
      const state: ExampleState = {
        at: createdAt,
        inputs: draft.inputs ?? {},
        outputs: draft.outputs ?? null,
        metadata: draft.metadata ?? {},
        split,
        deleted: false,
      };
      return { id, dataset_id: draft.dataset_id, created_at: createdAt, history: [state] };
    });
    for (const record of records) this.datasets.putExample(tenantId, record, now);
    return records.map((r) => r.id);
  }

  private view(tenantId: string, id: string, asOf: number): Record<string, unknown> {
    const example = this.datasets.example(tenantId, id);
    const state = example === undefined ? undefined : stateAt(example, asOf);
    if (example === undefined || state === undefined || state.deleted) throw notFound('Example');
    return exampleToWire({ example, state });
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function nonNegative(text: string | null, name: string, fallback: number): number {
  if (text === null) return fallback;
  if (!/^\d+$/.test(text)) {
    throw validationError([
      { loc: ['query', name], msg: 'Input should be a valid integer', type: 'int_parsing' },
    ]);
  }
  return Number(text);
}
