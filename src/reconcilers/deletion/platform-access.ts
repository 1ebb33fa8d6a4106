// Which platform data client a deletion may use: its connection's (each on the connection's own
// rate budget, so that a bulk deletion queues behind the deployments' calls of the same key),
// or the default connection's, and only where the connection's owner lets that namespace
// delete workspace data. A refusal is a value, told before any call is made.
import type { Logger } from 'pino';
import {
  resolveObjectConnection,
  type ConnectionUser,
} from '../../connections/agentdeployment-connection.js';
import type { ConnectionRegistry } from '../../connections/registry.js';
import type { RateBudget } from '../../controlplane/budget/index.js';
import { PlatformDataClient } from '../../platformdata/index.js';
import { PlatformDataClients } from './platform-data-clients.js';
import type { PlatformAccess, SessionAccess } from './ports.js';

/** The default connection's platform data API, as the operator's flags give it. */
export interface DefaultPlatformSettings {
  controlPlaneUrl?: string;
  region: 'us' | 'eu';
  apiKey: string;
  tenantId?: string;
}

export class DeletionPlatforms {
  private readonly defaultClient: PlatformDataClient;
  private readonly namedClients: PlatformDataClients;

  constructor(
    private readonly connections: ConnectionRegistry,
    settings: DefaultPlatformSettings,
    /** The default connection's budget: deletions on the operator's own key spend it too. */
    defaultBudget: RateBudget,
    logger: Logger,
    /** Asked right before each request (the lease is held); false: nothing is sent. */
    mayCall?: () => boolean,
  ) {
    this.defaultClient = new PlatformDataClient({
      ...(settings.controlPlaneUrl === undefined ? {} : { baseUrl: settings.controlPlaneUrl }),
      region: settings.region,
      credentials: { apiKey: settings.apiKey, ...(settings.tenantId ? { tenantId: settings.tenantId } : {}) },
      budget: defaultBudget,
      logger: logger.child({ component: 'platform-data-client' }),
      ...(mayCall === undefined ? {} : { mayCall }),
    });
    this.namedClients = new PlatformDataClients(logger, mayCall);
  }

  platformFor(object: ConnectionUser): PlatformAccess {
    return this.access(object, true);
  }

  /** The object's connection for reading sessions, where its namespace may delete data with it. */
  sessionsFor(object: ConnectionUser): SessionAccess {
    return this.access(object, true);
  }

  /**
   * The object's connection for reads only (an AgentDeployment's tracing project, looked up by
   * its name): any namespace that may use the connection may read with it.
   */
  sessionsForReading(object: ConnectionUser): SessionAccess {
    return this.access(object, false);
  }

  private access(
    object: ConnectionUser,
    forDataDeletion: boolean,
  ):
    { ok: true; client: PlatformDataClient; label: string } | { ok: false; reason: string; message: string } {
    const resolution = resolveObjectConnection(this.connections, object, { forDataDeletion });
    if (!resolution.ok) return resolution;
    // The connection's owner decides who may delete workspace data with its key; a refused
    // namespace is told why before any call is made.
    if (forDataDeletion && resolution.dataDeletionRefusal !== undefined) {
      return { ok: false, reason: 'DataDeletionNotAllowed', message: resolution.dataDeletionRefusal };
    }
    const { platform } = resolution;
    if (platform !== undefined) {
      return {
        ok: true,
        client: this.namedClients.clientFor({ ...resolution, platform }),
        label: resolution.label,
      };
    }
    return { ok: true, client: this.defaultClient, label: resolution.label };
  }

  async close(): Promise<void> {
    await this.namedClients.close();
    await this.defaultClient.close();
  }
}
