// Datasets: create, list (optionally by exact name), read one, and read which version was
// current at a time (`/datasets/{id}/version?as_of=`).
import { z } from 'zod';
import { HttpError } from '../http/http-error.js';
import { newUuid } from '../http/ids.js';
import { uuidPathParam } from '../http/query-params.js';
import type { Reply } from '../http/reply.js';
import { callerOf, iso, notFound, parseBody, parseTime, type PlatformContext } from './platform-context.js';
import type { DatasetRecord, DatasetStore } from './dataset-store.js';

const DatasetCreate = z.looseObject({
  name: z.string().min(1).max(256),
  description: z.string().nullish(),
  data_type: z.enum(['kv', 'llm', 'chat']).nullish(),
  extra: z.record(z.string(), z.unknown()).nullish(),
  id: z.uuid().nullish(),
});

export function datasetToWire(dataset: DatasetRecord, exampleCount: number): Record<string, unknown> {
  return {
    ...dataset,
    created_at: iso(dataset.created_at),
    modified_at: iso(dataset.modified_at),
    example_count: exampleCount,
    session_count: 0,
    last_session_start_time: null,
  };
}

export class DatasetHandlers {
  constructor(private readonly datasets: DatasetStore) {}

  create = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const request = parseBody(ctx, DatasetCreate);
    if (this.datasets.datasets(tenantId).some((d) => d.name === request.name)) {
      throw new HttpError(409, { detail: `Dataset with name ${request.name} already exists` });
    }
    const dataset: DatasetRecord = {
      id: request.id ?? newUuid(),
      name: request.name,
      description: request.description ?? null,
      tenant_id: tenantId,
      data_type: request.data_type ?? 'kv',
      extra: request.extra ?? {},
      created_at: ctx.now,
      modified_at: ctx.now,
    };
    this.datasets.createDataset(dataset);
    return { status: 200, body: datasetToWire(dataset, 0) };
  };

  list = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const name = ctx.query.get('name');
    const all = this.datasets.datasets(tenantId).filter((d) => name === null || d.name === name);
    return { status: 200, body: all.map((d) => datasetToWire(d, this.count(tenantId, d.id, ctx.now))) };
  };

  get = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const dataset = this.datasets.dataset(tenantId, uuidPathParam(ctx.params, 'dataset_id'));
    if (dataset === undefined) throw notFound('Dataset');
    return { status: 200, body: datasetToWire(dataset, this.count(tenantId, dataset.id, ctx.now)) };
  };

  /** The version current at `as_of`: the time of the last change at or before it. */
  version = (ctx: PlatformContext): Reply => {
    const { tenantId } = callerOf(ctx);
    const dataset = this.datasets.dataset(tenantId, uuidPathParam(ctx.params, 'dataset_id'));
    if (dataset === undefined) throw notFound('Dataset');
    const asOfText = ctx.query.get('as_of');
    const asOf =
      asOfText === null || asOfText === 'latest' ? ctx.now : parseTime(asOfText, ['query', 'as_of']);
    let at = dataset.created_at;
    for (const example of this.datasets.examplesOf(tenantId, dataset.id)) {
      for (const state of example.history) if (state.at <= asOf && state.at > at) at = state.at;
    }
    return { status: 200, body: { as_of: iso(at), tags: [] } };
  };

  private count(tenantId: string, datasetId: string, now: number): number {
    return this.datasets.visibleAt(tenantId, now, datasetId).length;
  }
}
