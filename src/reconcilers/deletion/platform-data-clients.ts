// One platform data client per named connection's credential and platform address, built on
// the budget of the connection's control-plane client: deletions and deployments of one key
// spend one budget. A rotated key has a new budget identity, hence a new client; the client of
// the old key is closed then.
import type { Logger } from 'pino';
import type { ResolvedConnection } from '../../connections/registry.js';
import { PlatformDataClient } from '../../platformdata/index.js';

export class PlatformDataClients {
  /** connection label -> its client and the identity it was built for. */
  private readonly clients = new Map<string, { identity: string; client: PlatformDataClient }>();

  constructor(
    private readonly logger: Logger,
    /** Asked right before each request (the lease is held); false: nothing is sent. */
    private readonly mayCall?: () => boolean,
  ) {}

  /** The client of a named connection (one with `platform`). */
  clientFor(
    resolution: ResolvedConnection & { platform: NonNullable<ResolvedConnection['platform']> },
  ): PlatformDataClient {
    const { platform } = resolution;
    const scheme = 'apiKey' in platform.credentials ? 'key' : 'bearer';
    const identity = `${resolution.budgetId}|${platform.url}|${scheme}|${platform.credentials.tenantId ?? ''}`;
    const held = this.clients.get(resolution.label);
    if (held?.identity === identity) return held.client;
    if (held !== undefined) void held.client.close();
    const client = new PlatformDataClient({
      baseUrl: platform.url,
      region: resolution.client.endpoint.region,
      credentials: platform.credentials,
      budget: resolution.client.budget,
      ...(platform.addressPolicy === undefined ? {} : { addressPolicy: platform.addressPolicy }),
      logger: this.logger.child({ component: 'platform-data-client', connection: resolution.label }),
      ...(this.mayCall === undefined ? {} : { mayCall: this.mayCall }),
    });
    this.clients.set(resolution.label, { identity, client });
    return client;
  }

  async close(): Promise<void> {
    const clients = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(clients.map((held) => held.client.close()));
  }
}
