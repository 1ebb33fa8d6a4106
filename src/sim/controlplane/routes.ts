// The route tables: the spec's API (authenticated, rate limited, counted) and the admin
// API under /_emulator/ (none of those).
import { AdminHandlers } from './admin-handlers.js';
import { CatalogHandlers } from './catalog-handlers.js';
import { DeploymentHandlers } from './deployment-handlers.js';
import type { ApiContext, Handler, RequestContext } from './request-context.js';
import { Router } from '../http/router.js';
import type { EmulatorRuntime } from './runtime.js';

export const ADMIN_PREFIX = '/_emulator/';

export function apiRouter(runtime: EmulatorRuntime): Router<Handler<ApiContext>> {
  const deployments = new DeploymentHandlers(runtime.store);
  const catalog = new CatalogHandlers(runtime.store);
  return new Router<Handler<ApiContext>>()
    .add('POST', '/v2/deployments', deployments.create)
    .add('GET', '/v2/deployments', deployments.list)
    .add('GET', '/v2/deployments/{deployment_id}', deployments.get)
    .add('PATCH', '/v2/deployments/{deployment_id}', deployments.patch)
    .add('DELETE', '/v2/deployments/{deployment_id}', deployments.delete)
    .add('GET', '/v2/deployments/{deployment_id}/revisions', deployments.listRevisions)
    .add('GET', '/v2/deployments/{deployment_id}/revisions/{revision_id}', deployments.getRevision)
    .add('GET', '/v2/listeners', catalog.listListeners)
    .add('GET', '/v1/integrations/repo_host/install', catalog.listIntegrations);
}

export function adminRouter(runtime: EmulatorRuntime): Router<Handler<RequestContext>> {
  const admin = new AdminHandlers(runtime);
  return new Router<Handler<RequestContext>>()
    .add('POST', '/_emulator/reset', admin.reset)
    .add('GET', '/_emulator/tenants', admin.tenants)
    .add('GET', '/_emulator/stats', admin.stats)
    .add('GET', '/_emulator/deployments', admin.deployments)
    .add('GET', '/_emulator/tracing-projects', admin.tracingProjects)
    .add('POST', '/_emulator/faults', admin.addFault)
    .add('DELETE', '/_emulator/faults', admin.clearFaults)
    .add('PUT', '/_emulator/rate-limit', admin.setRateLimit)
    .add('POST', '/_emulator/tenants/{tenant_id}/listeners', admin.seedListener)
    .add('POST', '/_emulator/tenants/{tenant_id}/integrations', admin.seedIntegration)
    .add('POST', '/_emulator/deployments/{deployment_id}/push', admin.push)
    .add('POST', '/_emulator/revision-failures', admin.injectRevisionFailure);
}
