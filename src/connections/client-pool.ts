// One rate budget per credential and control-plane address, however many connections use
// them: the server counts requests per key, so two connections with the same key must spend
// one budget. The identity is the credential's fingerprint with the address, never the key.
// A rotated key has a new fingerprint, hence a new budget (the server counts it anew); a
// Secret rewritten with the same key keeps its budget.
import type { Logger } from 'pino';
import { RateBudget, type RateLimitOverrides } from '../controlplane/budget/rate-budget.js';
import type { Region } from '../controlplane/budget/rate-table.js';
import { ControlPlaneClient, type ClientMetrics, type Credentials } from '../controlplane/client/index.js';
import type { AddressPolicy } from '../egress/address-policy.js';

export interface PoolRequest {
  /** Who uses it (a connection key), for "shared with" and for releasing. */
  user: string;
  controlPlaneUrl: string;
  region: Region;
  credentials: Credentials;
  fingerprint: string;
  rateLimits?: RateLimitOverrides;
  /** A tenant chose the URL (a PlatformConnection): its connections obey this address policy. */
  addressPolicy?: AddressPolicy;
}

export interface PooledClient {
  client: ControlPlaneClient;
  /** `<fingerprint>@<url>`: the budget's identity. */
  budgetId: string;
  /** The budget's identity with the tenant and scheme: which control plane (and tenant) the client reaches. */
  controlPlaneId: string;
  budget: RateBudget;
}

export interface ClientPoolOptions {
  logger?: Logger;
  metrics?: ClientMetrics;
  /** Asked right before each request (the lease is held); false: nothing is sent. */
  mayCall?: () => boolean;
}

interface BudgetEntry {
  budget: RateBudget;
  /** The default connection's budget belongs to the operator, which closes it. */
  owned: boolean;
}

export function budgetIdOf(fingerprint: string, controlPlaneUrl: string): string {
  return `${fingerprint}@${controlPlaneUrl}`;
}

/** Two clients with one key and address but different tenants share a budget, not their deployments. */
export function controlPlaneIdOf(
  budgetId: string,
  scheme: 'key' | 'bearer',
  tenantId: string | undefined,
): string {
  return `${budgetId}|${scheme}|${tenantId ?? ''}`;
}

export class ControlPlaneClientPool {
  private readonly budgets = new Map<string, BudgetEntry>();
  private readonly clients = new Map<string, PooledClient>();
  /** user -> the client key it holds. */
  private readonly holders = new Map<string, string>();

  constructor(private readonly options: ClientPoolOptions = {}) {}

  /** Registers an existing budget (the default connection's), so that connections with the same key share it. */
  adoptBudget(fingerprint: string, controlPlaneUrl: string, budget: RateBudget): void {
    this.budgets.set(budgetIdOf(fingerprint, controlPlaneUrl), { budget, owned: false });
  }

  clientFor(request: PoolRequest): PooledClient {
    const budgetId = budgetIdOf(request.fingerprint, request.controlPlaneUrl);
    const scheme = 'apiKey' in request.credentials ? 'key' : 'bearer';
    const controlPlaneId = controlPlaneIdOf(budgetId, scheme, request.credentials.tenantId);
    // A guarded and an unguarded client of one URL are two clients (one budget): the policy
    // a tenant's URL is held to must not depend on which connection came first.
    const clientKey = request.addressPolicy === undefined ? controlPlaneId : `${controlPlaneId}|guarded`;
    let pooled = this.clients.get(clientKey);
    if (pooled === undefined) {
      let entry = this.budgets.get(budgetId);
      if (entry === undefined) {
        entry = {
          budget: new RateBudget({
            region: request.region,
            ...(request.rateLimits === undefined ? {} : { overrides: request.rateLimits }),
          }),
          owned: true,
        };
        this.budgets.set(budgetId, entry);
      }
      const client = new ControlPlaneClient({
        baseUrl: request.controlPlaneUrl,
        region: request.region,
        credentials: request.credentials,
        budget: entry.budget,
        ...(this.options.logger === undefined ? {} : { logger: this.options.logger }),
        ...(this.options.metrics === undefined ? {} : { metrics: this.options.metrics }),
        ...(request.addressPolicy === undefined ? {} : { addressPolicy: request.addressPolicy }),
        ...(this.options.mayCall === undefined ? {} : { mayCall: this.options.mayCall }),
      });
      pooled = { client, budgetId, controlPlaneId, budget: entry.budget };
      this.clients.set(clientKey, pooled);
    }
    const previous = this.holders.get(request.user);
    this.holders.set(request.user, clientKey);
    if (previous !== undefined && previous !== clientKey) this.closeUnused(previous);
    return pooled;
  }

  /** The other users of the budget `user` holds. */
  sharing(user: string): string[] {
    const held = this.holders.get(user);
    if (held === undefined) return [];
    const budgetId = this.clients.get(held)?.budgetId;
    return [...this.holders]
      .filter(([other, key]) => other !== user && this.clients.get(key)?.budgetId === budgetId)
      .map(([other]) => other)
      .sort();
  }

  /** `user` no longer needs a client (its connection was deleted or lost its credential). */
  release(user: string): void {
    const held = this.holders.get(user);
    this.holders.delete(user);
    if (held !== undefined) this.closeUnused(held);
  }

  async close(): Promise<void> {
    const clients = [...this.clients.values()];
    this.clients.clear();
    this.holders.clear();
    await Promise.all(clients.map((pooled) => pooled.client.close()));
    for (const entry of this.budgets.values()) if (entry.owned) entry.budget.close();
    this.budgets.clear();
  }

  private closeUnused(clientKey: string): void {
    if ([...this.holders.values()].includes(clientKey)) return;
    const pooled = this.clients.get(clientKey);
    if (pooled === undefined) return;
    this.clients.delete(clientKey);
    void pooled.client.close();
    const budgetInUse = [...this.clients.values()].some((other) => other.budgetId === pooled.budgetId);
    const entry = this.budgets.get(pooled.budgetId);
    if (!budgetInUse && entry?.owned === true) {
      entry.budget.close();
      this.budgets.delete(pooled.budgetId);
    }
  }
}
