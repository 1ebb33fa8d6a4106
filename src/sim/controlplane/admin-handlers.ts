// The admin API under /_emulator/ (behind the admin token and Host checks of
// admin-guard.ts, not rate limited, not counted in stats): reset, inspect, seed listeners
// and integrations, trigger pushes, inject faults and revision failures, and change the
// rate limit at run time. The cross-tenant deployment dump masks secret values: they
// belong to the tenants, and a tenant reads its own through the API with its key.
import { z } from 'zod';
import { COMPUTE_TYPES, FAILED_REVISION_STATUSES } from './schemas/index.js';
import { FaultRuleInput } from '../http/faults.js';
import { detailError, validationError } from '../http/http-error.js';
import { deploymentNotFound } from './deployment-not-found.js';
import { uuidPathParam } from '../http/query-params.js';
import { jsonBody, type Reply, type RequestContext } from './request-context.js';
import type { EmulatorRuntime } from './runtime.js';
import { issuesToValidationErrors } from '../http/validation-errors.js';
import { deploymentToWire, integrationToWire, listenerToWire, revisionToWire } from './wire-views.js';

/** What the deployment dump shows in place of every secret value. */
export const MASKED_SECRET_VALUE = '********';

const ListenerSeed = z.object({
  compute_type: z.enum(COMPUTE_TYPES),
  compute_id: z.string().min(1).optional(),
  cluster_namespaces: z.array(z.string().min(1)).optional(),
});
const IntegrationSeed = z.object({
  name: z.string().min(1),
  installation_id: z.union([z.string(), z.number().int()]).optional(),
});
const PushRequest = z.object({
  repo_commit_sha: z
    .string()
    .regex(/^[0-9a-f]{40}$/, 'must be 40 hex characters')
    .optional(),
});
const RevisionFailureRequest = z.object({
  deployment_name: z.string().min(1).optional(),
  status: z.enum(FAILED_REVISION_STATUSES),
  count: z.number().int().min(1).optional(),
});
const RateLimitRequest = z.union([
  z.object({ off: z.literal(true), retryAfter: z.boolean().optional() }),
  z.object({
    count: z.number().int().min(1),
    windowSeconds: z.number().positive(),
    retryAfter: z.boolean().optional(),
  }),
]);

/** Admin bodies are optional where every field is: an empty body reads as `{}`. */
function parseAdminBody<T>(schema: z.ZodType<T>, ctx: RequestContext): T {
  const body = ctx.rawBody.trim() === '' ? {} : jsonBody(ctx);
  const result = schema.safeParse(body);
  if (!result.success) throw validationError(issuesToValidationErrors(result.error.issues, body, ['body']));
  return result.data;
}

export class AdminHandlers {
  constructor(private readonly runtime: EmulatorRuntime) {}

  private get store() {
    return this.runtime.store;
  }

  reset = (ctx: RequestContext): Reply => {
    this.store.reset(ctx.now);
    this.runtime.faults.clear();
    this.runtime.stats.reset();
    this.runtime.limiter.reset();
    for (const reset of this.runtime.onReset) reset();
    return { status: 204 };
  };

  tenants = (): Reply => {
    const fingerprints = this.runtime.keys.tenants();
    return {
      status: 200,
      body: this.store.allTenants().map((tenant) => ({
        tenant_id: tenant.id,
        key_fingerprint: fingerprints.get(tenant.id)?.[0] ?? null,
        key_fingerprints: fingerprints.get(tenant.id) ?? [],
        listener_ids: tenant.listeners.map((l) => l.id),
        integration_ids: tenant.integrations.map((i) => i.id),
      })),
    };
  };

  stats = (): Reply => ({ status: 200, body: this.runtime.stats.snapshot() });

  deployments = (ctx: RequestContext): Reply => ({
    status: 200,
    body: this.store.allDeployments(ctx.now).map((r) => ({
      ...deploymentToWire(r, this.store.phaseMs, ctx.now),
      secrets: r.secrets.map((secret) => ({ name: secret.name, value: MASKED_SECRET_VALUE })),
    })),
  });

  tracingProjects = (ctx: RequestContext): Reply => {
    this.store.sweep(ctx.now);
    return {
      status: 200,
      body: this.store.listTracingProjects().map((p) => ({
        id: p.id,
        tenant_id: p.tenantId,
        name: p.name,
        deployment_id: p.deploymentId,
        created_at: new Date(p.createdAt).toISOString(),
      })),
    };
  };

  addFault = (ctx: RequestContext): Reply => {
    const rule = parseAdminBody(FaultRuleInput, ctx);
    return { status: 201, body: { id: this.runtime.faults.add(rule) } };
  };

  clearFaults = (): Reply => {
    this.runtime.faults.clear();
    return { status: 204 };
  };

  setRateLimit = (ctx: RequestContext): Reply => {
    const request = parseAdminBody(RateLimitRequest, ctx);
    this.runtime.limiter.configure(
      'off' in request ? 'off' : { count: request.count, windowSeconds: request.windowSeconds },
    );
    if (request.retryAfter !== undefined) this.runtime.settings.retryAfter = request.retryAfter;
    return { status: 204 };
  };

  seedListener = (ctx: RequestContext): Reply => {
    const tenant = this.store.tenant(uuidPathParam(ctx.params, 'tenant_id'));
    if (!tenant) throw detailError(404, `Tenant ID ${ctx.params.tenant_id ?? ''} not found.`);
    const seed = parseAdminBody(ListenerSeed, ctx);
    const listener = this.store.addListener(tenant, {
      compute_type: seed.compute_type,
      compute_id: seed.compute_id ?? `emulator-${seed.compute_type}-${tenant.listeners.length + 1}`,
      cluster_namespaces: seed.cluster_namespaces ?? (seed.compute_type === 'cluster' ? ['default'] : []),
      createdAt: ctx.now,
    });
    return { status: 201, body: listenerToWire(listener) };
  };

  seedIntegration = (ctx: RequestContext): Reply => {
    const tenant = this.store.tenant(uuidPathParam(ctx.params, 'tenant_id'));
    if (!tenant) throw detailError(404, `Tenant ID ${ctx.params.tenant_id ?? ''} not found.`);
    const seed = parseAdminBody(IntegrationSeed, ctx);
    const integration = this.store.addIntegration(tenant, {
      name: seed.name,
      installation_id: seed.installation_id ?? 100_000 + tenant.integrations.length,
    });
    return { status: 201, body: integrationToWire(integration) };
  };

  push = (ctx: RequestContext): Reply => {
    const id = uuidPathParam(ctx.params, 'deployment_id');
    const record = this.store.findDeploymentAnyTenant(id, ctx.now);
    if (!record) throw deploymentNotFound(id);
    const request = parseAdminBody(PushRequest, ctx);
    if (record.sourceConfig.build_on_push !== true) {
      throw detailError(
        409,
        `Deployment ID ${id} does not build on push (source_config.build_on_push is not true)`,
      );
    }
    if (record.deletedAt !== null) throw detailError(409, `Deployment ID ${id} is being deleted`);
    const revision = this.store.addRevision(record, ctx.now, request.repo_commit_sha);
    return { status: 201, body: revisionToWire(record, revision, this.store.phaseMs, ctx.now) };
  };

  injectRevisionFailure = (ctx: RequestContext): Reply => {
    const request = parseAdminBody(RevisionFailureRequest, ctx);
    this.store.injectRevisionFailure(request.deployment_name ?? null, request.status, request.count ?? 1);
    return {
      status: 201,
      body: {
        deployment_name: request.deployment_name ?? null,
        status: request.status,
        count: request.count ?? 1,
      },
    };
  };
}
