// Listener and integration ids differ per workspace and region, so a manifest that names them
// by id cannot move from the US to the EU. This resolves names instead: a listener by its
// compute_id (the name of the cluster or serverless compute it deploys through: listeners
// have no other name) through GET /v2/listeners, an integration by its name through
// GET /v1/integrations/repo_host/install, on the object's own connection. Each connection's
// catalog is cached and refreshed slowly (10 min by default), and at most once a minute when
// a name is not found, so that a listener added a moment ago is seen without a call per
// reconcile. An unknown name's message lists the names that exist.
import type { ControlPlaneApi, ControlPlaneError } from '../controlplane/client/index.js';
import { LIST_LIMIT } from '../controlplane/models/index.js';

export type NameResolution =
  | { ok: true; id: string }
  | { ok: false; kind: 'UnknownName'; message: string }
  | { ok: false; kind: 'Failure'; error: ControlPlaneError };

export interface CatalogNamesOptions {
  clock?: { now(): number };
  /** How long a catalog is trusted; default 10 min. */
  refreshMs?: number;
  /** Earliest re-read after a miss; default 60 s. */
  missRefreshMs?: number;
}

interface Catalog {
  /** name -> id */
  ids: Map<string, string>;
  readAt: number;
}

/** Most names an error message lists; the rest are counted. */
const LISTED_NAMES = 20;

export class CatalogNames {
  private readonly catalogs = new Map<string, Catalog>();
  private readonly inFlight = new Map<string, Promise<Catalog | ControlPlaneError>>();
  private readonly clock: { now(): number };
  private readonly refreshMs: number;
  private readonly missRefreshMs: number;

  constructor(options: CatalogNamesOptions = {}) {
    this.clock = options.clock ?? Date;
    this.refreshMs = options.refreshMs ?? 10 * 60_000;
    this.missRefreshMs = options.missRefreshMs ?? 60_000;
  }

  /** `connection` identifies the catalog (a connection's budget id, say: one per workspace and address). */
  listenerId(
    client: Pick<ControlPlaneApi, 'listListeners'>,
    connection: string,
    name: string,
    signal?: AbortSignal,
  ): Promise<NameResolution> {
    return this.resolve(`listeners|${connection}`, 'listener', name, () => readListeners(client, signal));
  }

  integrationId(
    client: Pick<ControlPlaneApi, 'listIntegrations'>,
    connection: string,
    name: string,
    signal?: AbortSignal,
  ): Promise<NameResolution> {
    return this.resolve(`integrations|${connection}`, 'integration', name, async () => {
      const result = await client.listIntegrations({ ...(signal === undefined ? {} : { signal }) });
      if (!result.ok) return result.error;
      return new Map(result.value.map((integration) => [integration.name, integration.id]));
    });
  }

  private async resolve(
    key: string,
    what: string,
    name: string,
    read: () => Promise<Map<string, string> | ControlPlaneError>,
  ): Promise<NameResolution> {
    const now = this.clock.now();
    let catalog = this.catalogs.get(key);
    const stale = catalog === undefined || now - catalog.readAt >= this.refreshMs;
    const missCanRefresh =
      catalog !== undefined && !catalog.ids.has(name) && now - catalog.readAt >= this.missRefreshMs;
    if (stale || missCanRefresh) {
      const fresh = await this.read(key, read);
      if ('kind' in fresh) return { ok: false, kind: 'Failure', error: fresh };
      catalog = fresh;
    }
    const id = catalog?.ids.get(name);
    if (id !== undefined) return { ok: true, id };
    const names = [...(catalog?.ids.keys() ?? [])].sort();
    const listed = names
      .slice(0, LISTED_NAMES)
      .map((n) => `"${n}"`)
      .join(', ');
    const more = names.length > LISTED_NAMES ? ` and ${names.length - LISTED_NAMES} more` : '';
    return {
      ok: false,
      kind: 'UnknownName',
      message:
        names.length === 0
          ? `no ${what} named "${name}": the workspace has none`
          : `no ${what} named "${name}"; the workspace has ${listed}${more}`,
    };
  }

  /** One read per catalog at a time: concurrent reconciles share it. */
  private async read(
    key: string,
    read: () => Promise<Map<string, string> | ControlPlaneError>,
  ): Promise<Catalog | ControlPlaneError> {
    let pending = this.inFlight.get(key);
    if (pending === undefined) {
      pending = (async () => {
        const ids = await read();
        if (!(ids instanceof Map)) return ids;
        const catalog = { ids, readAt: this.clock.now() };
        this.catalogs.set(key, catalog);
        return catalog;
      })().finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }
}

async function readListeners(
  client: Pick<ControlPlaneApi, 'listListeners'>,
  signal: AbortSignal | undefined,
): Promise<Map<string, string> | ControlPlaneError> {
  const ids = new Map<string, string>();
  for (let offset = 0; ;) {
    const page = await client.listListeners(
      { limit: LIST_LIMIT.max, offset },
      signal === undefined ? {} : { signal },
    );
    if (!page.ok) return page.error;
    for (const listener of page.value.resources) ids.set(listener.compute_id, listener.id);
    if (page.value.resources.length < LIST_LIMIT.max) return ids;
    offset += page.value.resources.length;
  }
}
