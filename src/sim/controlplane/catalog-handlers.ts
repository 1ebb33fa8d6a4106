// The tenant's listeners (GET /v2/listeners) and repository-host integrations
// (GET /v1/integrations/repo_host/install), which deployments refer to by id.
import { LIST_LIMIT } from './schemas/index.js';
import { detailError } from '../http/http-error.js';
import { ParameterReader } from '../http/query-params.js';
import type { ApiContext, Reply } from './request-context.js';
import type { EmulatorStore, TenantRecord } from './store.js';
import { integrationToWire, listenerToWire } from './wire-views.js';

export class CatalogHandlers {
  constructor(private readonly store: EmulatorStore) {}

  private tenant(ctx: ApiContext): TenantRecord {
    const tenant = this.store.tenant(ctx.caller.tenantId);
    if (!tenant) throw detailError(403, 'Unknown tenant');
    return tenant;
  }

  listListeners = (ctx: ApiContext): Reply => {
    const params = new ParameterReader(ctx.query);
    const limit = params.integer('limit', LIST_LIMIT.default, { min: LIST_LIMIT.min, max: LIST_LIMIT.max });
    const offset = params.integer('offset', 0, { min: 0 });
    params.done();
    const listeners = this.tenant(ctx).listeners.slice(offset, offset + limit);
    return { status: 200, body: { resources: listeners.map(listenerToWire), offset } };
  };

  listIntegrations = (ctx: ApiContext): Reply => ({
    status: 200,
    body: this.tenant(ctx).integrations.map(integrationToWire),
  });
}
