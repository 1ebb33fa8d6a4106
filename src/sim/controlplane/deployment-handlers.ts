// The /v2/deployments routes: create, list, get, PATCH, DELETE, and revisions.
import {
  DEPLOYMENT_STATUSES,
  DeploymentCreateRequest,
  DeploymentPatchRequest,
  LIST_LIMIT,
  REVISION_STATUSES,
} from './schemas/index.js';
import type { z } from 'zod';
import { createDeployment, patchDeployment } from './deployment-service.js';
import { detailError, validationError } from '../http/http-error.js';
import { deploymentNotFound } from './deployment-not-found.js';
import { ParameterReader, uuidPathParam } from '../http/query-params.js';
import { jsonBody, type ApiContext, type Reply } from './request-context.js';
import type { DeploymentRecord, EmulatorStore, TenantRecord } from './store.js';
import { issuesToValidationErrors } from '../http/validation-errors.js';
import { deploymentStatusAt, deploymentToWire, revisionToWire } from './wire-views.js';
import { revisionStateAt } from './revision-lifecycle.js';

function parseBody<T>(schema: z.ZodType<T>, ctx: ApiContext): T {
  const body = jsonBody(ctx);
  const result = schema.safeParse(body);
  if (!result.success) throw validationError(issuesToValidationErrors(result.error.issues, body, ['body']));
  return result.data;
}

function page<T>(items: T[], offset: number, limit: number): { resources: T[]; offset: number } {
  return { resources: items.slice(offset, offset + limit), offset };
}

export class DeploymentHandlers {
  constructor(private readonly store: EmulatorStore) {}

  private tenant(ctx: ApiContext): TenantRecord {
    const tenant = this.store.tenant(ctx.caller.tenantId);
    if (!tenant) throw detailError(403, 'Unknown tenant');
    return tenant;
  }

  private deployment(ctx: ApiContext): DeploymentRecord {
    const id = uuidPathParam(ctx.params, 'deployment_id');
    const record = this.store.findDeployment(ctx.caller.tenantId, id, ctx.now);
    if (!record) throw deploymentNotFound(ctx.params.deployment_id ?? id);
    return record;
  }

  private wire(record: DeploymentRecord, now: number): Record<string, unknown> {
    return deploymentToWire(record, this.store.phaseMs, now);
  }

  create = (ctx: ApiContext): Reply => {
    const request = parseBody(DeploymentCreateRequest, ctx);
    const record = createDeployment(this.store, this.tenant(ctx), request, ctx.now);
    return { status: 201, body: this.wire(record, ctx.now) };
  };

  list = (ctx: ApiContext): Reply => {
    const params = new ParameterReader(ctx.query);
    const limit = params.integer('limit', LIST_LIMIT.default, { min: LIST_LIMIT.min, max: LIST_LIMIT.max });
    const offset = params.integer('offset', 0, { min: 0 });
    const nameContains = params.optionalString('name_contains')?.toLowerCase();
    const statuses = params.enumList('status', DEPLOYMENT_STATUSES);
    const ids = params.uuidList('deployment_ids');
    params.done();
    this.store.sweep(ctx.now);
    const matches: DeploymentRecord[] = [];
    for (const record of this.candidates(ctx, ids)) {
      if (nameContains !== undefined && !record.name.toLowerCase().includes(nameContains)) continue;
      if (statuses && !statuses.includes(deploymentStatusAt(record, this.store.phaseMs, ctx.now).status))
        continue;
      matches.push(record);
    }
    const result = page(matches, offset, limit);
    return { status: 200, body: { resources: result.resources.map((r) => this.wire(r, ctx.now)), offset } };
  };

  /**
   * The tenant's deployments a list looks at, in creation order: those named by
   * `deployment_ids` are looked up by id (a poller lists 100 ids at a time, and scanning
   * 100,000 deployments for them made the emulator the bottleneck of a large fleet).
   */
  private candidates(ctx: ApiContext, ids: readonly string[] | undefined): Iterable<DeploymentRecord> {
    const deployments = this.tenant(ctx).deployments;
    if (ids === undefined) return deployments.values();
    const named = new Map<string, DeploymentRecord>();
    for (const id of ids) {
      const record = deployments.get(id);
      if (record !== undefined) named.set(id, record);
    }
    return [...named.values()].sort((a, b) => a.sequence - b.sequence);
  }

  get = (ctx: ApiContext): Reply => ({ status: 200, body: this.wire(this.deployment(ctx), ctx.now) });

  patch = (ctx: ApiContext): Reply => {
    const record = this.deployment(ctx);
    const patch = parseBody(DeploymentPatchRequest, ctx);
    patchDeployment(this.store, this.tenant(ctx), record, patch, ctx.now);
    return { status: 200, body: this.wire(record, ctx.now) };
  };

  delete = (ctx: ApiContext): Reply => {
    const record = this.deployment(ctx);
    const params = new ParameterReader(ctx.query);
    const deleteTracingProject = params.boolean('delete_tracing_project', false);
    params.done();
    this.store.markDeleted(record, ctx.now, deleteTracingProject);
    return { status: 204 };
  };

  listRevisions = (ctx: ApiContext): Reply => {
    const record = this.deployment(ctx);
    const params = new ParameterReader(ctx.query);
    const limit = params.integer('limit', LIST_LIMIT.default, { min: LIST_LIMIT.min, max: LIST_LIMIT.max });
    const offset = params.integer('offset', 0, { min: 0 });
    const statuses = params.enumList('status', REVISION_STATUSES);
    params.done();
    const matches = statuses
      ? record.revisions.filter((r) =>
          statuses.includes(revisionStateAt(r.timeline, this.store.phaseMs, ctx.now).status),
        )
      : record.revisions;
    const result = page(matches, offset, limit);
    return {
      status: 200,
      body: {
        resources: result.resources.map((r) => revisionToWire(record, r, this.store.phaseMs, ctx.now)),
        offset,
      },
    };
  };

  getRevision = (ctx: ApiContext): Reply => {
    const record = this.deployment(ctx);
    const revisionId = uuidPathParam(ctx.params, 'revision_id');
    const revision = record.revisions.find((r) => r.id === revisionId);
    if (!revision) throw detailError(404, `Revision ID ${ctx.params.revision_id ?? revisionId} not found.`);
    return { status: 200, body: revisionToWire(record, revision, this.store.phaseMs, ctx.now) };
  };
}
