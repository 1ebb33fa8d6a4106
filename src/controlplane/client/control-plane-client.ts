// The typed control-plane client: one method per operation, responses validated with the
// shared wire models, every request through the executor (budget, retries, metrics).
import type { z } from 'zod';
import {
  Deployment,
  DeploymentCreateRequest,
  DeploymentPatchRequest,
  IntegrationList,
  LIST_LIMIT,
  Listener,
  Page,
  Revision,
  DEPLOYMENT_STATUSES,
  REVISION_STATUSES,
  type DeploymentStatus,
  type Integration,
  type RevisionStatus,
} from '../models/index.js';
import { HttpApiClient } from './client-parts.js';
import type { ControlPlaneClientOptions } from './config.js';
import type { Result, TerminalError } from './errors.js';
import type { CallOptions, CallSpec } from './request-executor.js';
import { fillRoute, queryString, ROUTES } from './routes.js';

export { DEFAULT_DEADLINE_MS, DEFAULT_MAX_BUDGET_WAIT_MS } from './client-parts.js';

export interface PageQuery {
  /** 1..100; the server's default is 20. */
  limit?: number;
  offset?: number;
}

export interface ListDeploymentsQuery extends PageQuery {
  nameContains?: string;
  status?: DeploymentStatus;
  deploymentIds?: string[];
}

export interface ListRevisionsQuery extends PageQuery {
  status?: RevisionStatus[];
}

export interface DeleteDeploymentOptions extends CallOptions {
  /** Also delete the tracing project created with the deployment; absent: the server's default. */
  deleteTracingProject?: boolean;
}

export interface DeploymentPage {
  resources: Deployment[];
  offset: number;
}
export interface RevisionPage {
  resources: Revision[];
  offset: number;
}
export interface ListenerPage {
  resources: Listener[];
  offset: number;
}

/** What the operator needs from the control plane; tests can substitute their own. */
export interface ControlPlaneApi {
  createDeployment(request: DeploymentCreateRequest, options?: CallOptions): Promise<Result<Deployment>>;
  getDeployment(deploymentId: string, options?: CallOptions): Promise<Result<Deployment>>;
  listDeployments(query?: ListDeploymentsQuery, options?: CallOptions): Promise<Result<DeploymentPage>>;
  patchDeployment(
    deploymentId: string,
    patch: DeploymentPatchRequest,
    options?: CallOptions,
  ): Promise<Result<Deployment>>;
  deleteDeployment(deploymentId: string, options?: DeleteDeploymentOptions): Promise<Result<void>>;
  getRevision(deploymentId: string, revisionId: string, options?: CallOptions): Promise<Result<Revision>>;
  listRevisions(
    deploymentId: string,
    query?: ListRevisionsQuery,
    options?: CallOptions,
  ): Promise<Result<RevisionPage>>;
  listListeners(query?: PageQuery, options?: CallOptions): Promise<Result<ListenerPage>>;
  listIntegrations(options?: CallOptions): Promise<Result<Integration[]>>;
}

const DeploymentPageSchema = Page(Deployment);
const RevisionPageSchema = Page(Revision);
const ListenerPageSchema = Page(Listener);

type Method = CallSpec<unknown>['method'];

/** A request refused before sending: status 0, the field and the rule named. */
export function localRejection(
  method: Method,
  route: string,
  loc: (string | number)[],
  rule: string,
): TerminalError {
  const field = loc.join('.');
  return {
    kind: 'Terminal',
    method,
    route,
    attempts: 0,
    status: 0,
    detail: `${field}: ${rule}`,
    validation: [{ loc, msg: rule, type: 'client_validation' }],
    message: `${method} ${route}: rejected before sending: ${field}: ${rule}`,
  };
}

/** The first problem with a page query, as [field, rule], or undefined. */
function pageProblem(query: PageQuery): [string, string] | undefined {
  if (
    query.limit !== undefined &&
    !(Number.isInteger(query.limit) && query.limit >= LIST_LIMIT.min && query.limit <= LIST_LIMIT.max)
  ) {
    return ['limit', `must be an integer from ${LIST_LIMIT.min} to ${LIST_LIMIT.max}`];
  }
  if (query.offset !== undefined && !(Number.isInteger(query.offset) && query.offset >= 0)) {
    return ['offset', 'must be an integer >= 0'];
  }
  return undefined;
}

function zodProblem(error: z.ZodError): { loc: (string | number)[]; rule: string } {
  const issue = error.issues[0];
  return {
    loc: ['body', ...(issue?.path ?? []).map((part) => (typeof part === 'number' ? part : String(part)))],
    rule: issue?.message ?? 'invalid',
  };
}

function secretValues(secrets: readonly { value: string }[] | null | undefined): string[] {
  return (secrets ?? []).map((secret) => secret.value);
}

export class ControlPlaneClient extends HttpApiClient implements ControlPlaneApi {
  constructor(options: ControlPlaneClientOptions) {
    super(options, 'controlplane-client');
  }

  async createDeployment(
    request: DeploymentCreateRequest,
    options?: CallOptions,
  ): Promise<Result<Deployment>> {
    const parsed = DeploymentCreateRequest.safeParse(request);
    if (!parsed.success) {
      const { loc, rule } = zodProblem(parsed.error);
      return { ok: false, error: localRejection('POST', ROUTES.deployments, loc, rule) };
    }
    return this.executor.execute(
      {
        method: 'POST',
        route: ROUTES.deployments,
        path: fillRoute(ROUTES.deployments),
        body: parsed.data,
        bodySecrets: secretValues(parsed.data.secrets),
        schema: Deployment,
      },
      options,
    );
  }

  async getDeployment(deploymentId: string, options?: CallOptions): Promise<Result<Deployment>> {
    const path = this.pathOr('GET', ROUTES.deployment, { deployment_id: deploymentId });
    if (typeof path !== 'string') return { ok: false, error: path };
    return this.executor.execute(
      { method: 'GET', route: ROUTES.deployment, path, schema: Deployment },
      options,
    );
  }

  async listDeployments(
    query: ListDeploymentsQuery = {},
    options?: CallOptions,
  ): Promise<Result<DeploymentPage>> {
    const route = ROUTES.deployments;
    const problem = pageProblem(query);
    if (problem) return { ok: false, error: localRejection('GET', route, ['query', problem[0]], problem[1]) };
    if (query.status !== undefined && !(DEPLOYMENT_STATUSES as readonly string[]).includes(query.status)) {
      return {
        ok: false,
        error: localRejection(
          'GET',
          route,
          ['query', 'status'],
          `must be one of ${DEPLOYMENT_STATUSES.join(', ')}`,
        ),
      };
    }
    if (query.deploymentIds?.some((id) => id === '' || id.includes(',')) === true) {
      return {
        ok: false,
        error: localRejection(
          'GET',
          route,
          ['query', 'deploymentIds'],
          'ids must be non-empty and contain no comma',
        ),
      };
    }
    const search = queryString({
      limit: query.limit,
      offset: query.offset,
      name_contains: query.nameContains,
      status: query.status,
      deployment_ids:
        query.deploymentIds === undefined || query.deploymentIds.length === 0
          ? undefined
          : query.deploymentIds.join(','),
    });
    return this.executor.execute(
      { method: 'GET', route, path: fillRoute(route), query: search, schema: DeploymentPageSchema },
      options,
    );
  }

  async patchDeployment(
    deploymentId: string,
    patch: DeploymentPatchRequest,
    options?: CallOptions,
  ): Promise<Result<Deployment>> {
    const route = ROUTES.deployment;
    const path = this.pathOr('PATCH', route, { deployment_id: deploymentId });
    if (typeof path !== 'string') return { ok: false, error: path };
    const parsed = DeploymentPatchRequest.safeParse(patch);
    if (!parsed.success) {
      const { loc, rule } = zodProblem(parsed.error);
      return { ok: false, error: localRejection('PATCH', route, loc, rule) };
    }
    return this.executor.execute(
      {
        method: 'PATCH',
        route,
        path,
        body: parsed.data,
        bodySecrets: secretValues(parsed.data.secrets),
        schema: Deployment,
      },
      options,
    );
  }

  async deleteDeployment(deploymentId: string, options: DeleteDeploymentOptions = {}): Promise<Result<void>> {
    const route = ROUTES.deployment;
    const path = this.pathOr('DELETE', route, { deployment_id: deploymentId });
    if (typeof path !== 'string') return { ok: false, error: path };
    const { deleteTracingProject, ...callOptions } = options;
    const search = queryString({ delete_tracing_project: deleteTracingProject });
    return this.executor.execute({ method: 'DELETE', route, path, query: search, schema: null }, callOptions);
  }

  async getRevision(
    deploymentId: string,
    revisionId: string,
    options?: CallOptions,
  ): Promise<Result<Revision>> {
    const route = ROUTES.revision;
    const path = this.pathOr('GET', route, { deployment_id: deploymentId, revision_id: revisionId });
    if (typeof path !== 'string') return { ok: false, error: path };
    return this.executor.execute({ method: 'GET', route, path, schema: Revision }, options);
  }

  async listRevisions(
    deploymentId: string,
    query: ListRevisionsQuery = {},
    options?: CallOptions,
  ): Promise<Result<RevisionPage>> {
    const route = ROUTES.revisions;
    const path = this.pathOr('GET', route, { deployment_id: deploymentId });
    if (typeof path !== 'string') return { ok: false, error: path };
    const problem = pageProblem(query);
    if (problem) return { ok: false, error: localRejection('GET', route, ['query', problem[0]], problem[1]) };
    const unknownStatus = query.status?.find(
      (status) => !(REVISION_STATUSES as readonly string[]).includes(status),
    );
    if (unknownStatus !== undefined) {
      return {
        ok: false,
        error: localRejection(
          'GET',
          route,
          ['query', 'status'],
          `must be among ${REVISION_STATUSES.join(', ')}`,
        ),
      };
    }
    const search = queryString({
      limit: query.limit,
      offset: query.offset,
      status: query.status === undefined || query.status.length === 0 ? undefined : query.status.join(','),
    });
    return this.executor.execute(
      { method: 'GET', route, path, query: search, schema: RevisionPageSchema },
      options,
    );
  }

  async listListeners(query: PageQuery = {}, options?: CallOptions): Promise<Result<ListenerPage>> {
    const route = ROUTES.listeners;
    const problem = pageProblem(query);
    if (problem) return { ok: false, error: localRejection('GET', route, ['query', problem[0]], problem[1]) };
    const search = queryString({ limit: query.limit, offset: query.offset });
    return this.executor.execute(
      { method: 'GET', route, path: fillRoute(route), query: search, schema: ListenerPageSchema },
      options,
    );
  }

  async listIntegrations(options?: CallOptions): Promise<Result<Integration[]>> {
    const route = ROUTES.integrations;
    return this.executor.execute(
      { method: 'GET', route, path: fillRoute(route), schema: IntegrationList },
      options,
    );
  }

  private pathOr(
    method: Method,
    route: Parameters<typeof fillRoute>[0],
    params: Record<string, string>,
  ): string | TerminalError {
    for (const [name, value] of Object.entries(params)) {
      if (typeof value !== 'string' || value.trim() === '')
        return localRejection(method, route, ['path', name], 'must be a non-empty string');
    }
    return fillRoute(route, params);
  }
}

export function createControlPlaneClient(options: ControlPlaneClientOptions): ControlPlaneClient {
  return new ControlPlaneClient(options);
}
