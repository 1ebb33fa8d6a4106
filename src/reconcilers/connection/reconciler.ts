// The connection reconciler's shell: observe (caches, the registry's view of the credential,
// what this process remembers of the last probe), decide (pure), perform one action, publish
// status only when it changed. When the operator is sharded, this shard counts only its own
// AgentDeployments: it writes its entry of status.shardUsers (and usedBy, their sum) under a
// resourceVersion precondition, and a deleting connection waits for every live shard's users
// (shard-users.ts). Keys are `PlatformConnection/<namespace>/<name>` and
// `ClusterPlatformConnection//<name>` (connectionIndexValue).
import type { Logger } from 'pino';
import {
  CONNECTION_FINALIZER,
  type ConnectionStatus,
  type PlatformConnectionObject,
  type ShardUsers,
} from '../../api/connection/index.js';
import type { ConnectionRegistry } from '../../connections/registry.js';
import { describeConnection } from '../../connections/reference.js';
import type { ControlPlaneClient } from '../../controlplane/client/index.js';
import type { ConnectionEndpoints } from '../../connections/endpoints.js';
import { addFinalizer, hasFinalizer, removeFinalizer } from '../../runtime/reconcile/finalizers.js';
import type { WriteOutcome } from '../../runtime/reconcile/object-port.js';
import { failure, runPass, type Observation, type Performed } from '../../runtime/reconcile/pass.js';
import { awaitChange, requeueAfter, type ReconcileResult } from '../../runtime/reconcile/result.js';
import {
  afterFailedWrite,
  conditionTransitions,
  publishStatus,
} from '../../runtime/reconcile/status-publisher.js';
import type { ConnectionAction } from './action.js';
import { withConditions, type ConnectionConditionUpdate } from './conditions.js';
import { decideConnection } from './decide.js';
import { noopConnectionMetrics, type ConnectionLabels, type ConnectionMetrics } from './metrics.js';
import type { ProbeMemory } from './observed.js';
import {
  DEFAULT_PROBE_TIMINGS,
  nextProbeDelay,
  probeConditions,
  probeHealthy,
  type ProbeTimings,
} from './outcome-status.js';
import type { ConnectionKubePort } from './ports.js';
import { guardedGet, probeConnection, type HttpGet, type ProbeOutcome } from './probe.js';
import { countUsers, otherShardsInUse, shardEntryExpired, type ShardLease } from './shard-users.js';
import { sameJson } from '../../runtime/same-json.js';
import type { AddressPolicy } from '../../egress/address-policy.js';

/** How often a deleting connection that is still in use is looked at again (the users' watch also wakes it). */
const HOLD_RECHECK_MS = 30_000;
const CREDENTIAL_RECHECK_MS = 60_000;

export type Prober = (
  client: ControlPlaneClient,
  endpoints: ConnectionEndpoints,
  signal: AbortSignal,
  /** The /ok checks' GET: held to the address policy when a tenant chose the URLs. */
  get?: HttpGet,
) => Promise<ProbeOutcome>;

export interface ConnectionReconcilerOptions {
  kube: ConnectionKubePort;
  registry: ConnectionRegistry;
  /** `namespace/name` of the AgentDeployments that name the connection (this shard's). */
  usersOf(connection: PlatformConnectionObject): string[];
  /** This process's shard (--shard); undefined when the operator is not sharded. */
  shard?: string;
  /** Reads a shard's Lease, to tell whether its entry has expired; without it none expires. */
  shardLease?: (shard: string, signal: AbortSignal) => Promise<ShardLease>;
  probe?: Prober;
  clock: { now(): number };
  random?: () => number;
  timings?: Partial<ProbeTimings>;
  metrics?: ConnectionMetrics;
  logger: Logger;
  /** What a PlatformConnection's URLs may reach from the operator's pod (--allow-private-networks). */
  tenantAddressPolicy?: AddressPolicy;
}

/** What a pass reads before it decides. */
interface ConnectionFacts {
  connection: PlatformConnectionObject;
  /** `namespace/name` of the AgentDeployments that name it, sorted. */
  users: string[];
  /** Other shards' live entries that still count users (read only for a deleting connection). */
  otherShards: Array<{ shard: string; usedBy: number }>;
  /** Other shards whose entries have expired (their Leases read), to be dropped. */
  expired: ReadonlySet<string>;
  access: ReturnType<ConnectionRegistry['clientFor']>;
}

type WriteFailure = Extract<WriteOutcome<PlatformConnectionObject>, { ok: false }>;

export class ConnectionReconciler {
  private readonly memory = new Map<string, ProbeMemory>();
  private readonly timings: ProbeTimings;
  private readonly metrics: ConnectionMetrics;
  private readonly probe: Prober;
  private readonly tenantGet: HttpGet | undefined;
  private readonly random: () => number;

  constructor(private readonly options: ConnectionReconcilerOptions) {
    this.timings = { ...DEFAULT_PROBE_TIMINGS, ...options.timings };
    this.metrics = options.metrics ?? noopConnectionMetrics;
    this.random = options.random ?? Math.random;
    this.probe =
      options.probe ??
      ((client, endpoints, signal, get) =>
        probeConnection({ client, endpoints, signal, ...(get === undefined ? {} : { get }) }));
    this.tenantGet =
      options.tenantAddressPolicy === undefined ? undefined : guardedGet(options.tenantAddressPolicy);
  }

  reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    return runPass<ConnectionFacts, ConnectionAction, WriteFailure>(
      {
        observe: (passSignal) => this.observe(key, passSignal),
        decide: (facts) =>
          decideConnection({
            generation: facts.connection.metadata.generation ?? 0,
            deleting: facts.connection.metadata.deletionTimestamp !== undefined,
            hasFinalizer: hasFinalizer(facts.connection, CONNECTION_FINALIZER),
            users: facts.users,
            otherShards: facts.otherShards,
            credential: facts.access.ok
              ? { ok: true, version: facts.access.credentialVersion }
              : { ok: false, message: facts.access.message },
            memory: this.memory.get(key),
            now: this.options.clock.now(),
          }),
        perform: (action, facts, passSignal) => this.perform(key, action, facts, passSignal),
        // A failed Kubernetes write means the same for every kind.
        errorPolicy: (failed) => afterFailedWrite(failed),
      },
      signal,
    );
  }

  private async observe(
    key: string,
    signal: AbortSignal,
  ): Promise<Observation<ConnectionFacts, WriteFailure>> {
    const connection = this.options.kube.get(key);
    if (connection === undefined) {
      // Gone without our finalizer (removed by hand, or never added): let its client go too.
      this.memory.delete(key);
      const [kind, namespace = '', ...name] = key.split('/');
      if (kind === 'PlatformConnection' || kind === 'ClusterPlatformConnection') {
        this.options.registry.forget({
          kind,
          metadata: { name: name.join('/'), ...(namespace === '' ? {} : { namespace }) },
        });
      }
      return undefined;
    }
    const users = this.options.usersOf(connection).sort();
    // Only a deletion depends on the other shards' counts being live: their Leases are read then.
    const expired =
      connection.metadata.deletionTimestamp === undefined
        ? new Set<string>()
        : await this.expiredShards(connection, (usedBy) => usedBy > 0, signal);
    const otherShards = otherShardsInUse(connection.status?.shardUsers, this.options.shard, expired);
    return {
      facts: { connection, users, otherShards, expired, access: this.options.registry.clientFor(connection) },
    };
  }

  /** The other shards whose entries (those `which` picks) have expired, by their Leases. */
  private async expiredShards(
    connection: PlatformConnectionObject,
    which: (usedBy: number) => boolean,
    signal: AbortSignal,
  ): Promise<Set<string>> {
    const { shard, shardLease } = this.options;
    if (shard === undefined || shardLease === undefined) return new Set();
    const entries = (connection.status?.shardUsers ?? []).filter(
      (entry) => entry.shard !== shard && which(entry.usedBy),
    );
    const leases = await Promise.all(entries.map((entry) => shardLease(entry.shard, signal)));
    const now = this.options.clock.now();
    return new Set(
      entries
        .filter((entry, index) => shardEntryExpired(entry, leases[index] ?? { kind: 'unknown' }, now))
        .map((entry) => entry.shard),
    );
  }

  /** The status as read, with this shard's count of users folded in (usedBy, shardUsers). */
  private counted(
    connection: PlatformConnectionObject,
    users: readonly string[],
    endpoint: string,
    expired: ReadonlySet<string>,
    refresh: boolean,
  ): ConnectionStatus {
    const { shardUsers, usedBy } = countUsers(connection.status?.shardUsers, {
      shard: this.options.shard,
      count: users.length,
      now: this.options.clock.now(),
      refresh,
      expired,
    });
    // A merge patch removes a key only when it is absent (not undefined): build it without.
    const status: ConnectionStatus = { ...connection.status, endpoint, usedBy };
    delete status.shardUsers;
    return shardUsers === undefined ? status : { ...status, shardUsers };
  }

  private async perform(
    key: string,
    action: ConnectionAction,
    { connection, users, expired, access }: ConnectionFacts,
    signal: AbortSignal,
  ): Promise<Performed<WriteFailure>> {
    const base = this.counted(connection, users, access.endpoints.display, expired, false);
    switch (action.kind) {
      case 'done':
        return awaitChange;
      case 'addFinalizer': {
        const outcome = await addFinalizer(this.options.kube, connection, CONNECTION_FINALIZER, signal);
        // The watch on finalizers wakes the connection when the cache has the write.
        return outcome.ok ? awaitChange : failure(outcome);
      }
      case 'releaseFinalizer': {
        const outcome = await removeFinalizer(this.options.kube, connection, CONNECTION_FINALIZER, signal);
        if (!outcome.ok) return failure(outcome);
        this.options.registry.forget(connection);
        this.metrics.forget(labelsOf(connection));
        this.memory.delete(key);
        return awaitChange;
      }
      case 'holdForUsers': {
        const message = `Deletion waits: ${holdMessage(action.users, base.shardUsers)}`;
        const update: ConnectionConditionUpdate = {
          type: 'Ready',
          status: 'False',
          reason: 'InUse',
          message,
        };
        const published = await this.publish(connection, base, [update], 'Warning', signal);
        return published ?? requeueAfter(HOLD_RECHECK_MS);
      }
      case 'credentialMissing': {
        const update: ConnectionConditionUpdate = {
          type: 'Ready',
          status: 'False',
          reason: 'SecretNotFound',
          message: action.message,
        };
        this.metrics.state(labelsOf(connection), false, readyOf(connection, 'Reachable'), undefined);
        const published = await this.publish(connection, base, [update], 'Warning', signal);
        return published ?? requeueAfter(CREDENTIAL_RECHECK_MS);
      }
      case 'probe': {
        if (!access.ok) return awaitChange;
        // The probe writes status anyway: the moment to drop expired shards' entries and to
        // stamp this shard's, so that an entry of a shard without a Lease stays fresh.
        const everyExpired = await this.expiredShards(connection, () => true, signal);
        const refreshed = this.counted(connection, users, access.endpoints.display, everyExpired, true);
        return this.probeAndPublish(key, connection, refreshed, access, signal);
      }
      case 'wait': {
        const published = await this.publish(connection, base, [], 'Normal', signal);
        return published ?? requeueAfter(action.ms);
      }
    }
  }

  private async probeAndPublish(
    key: string,
    connection: PlatformConnectionObject,
    base: ConnectionStatus,
    access: Extract<ReturnType<ConnectionRegistry['clientFor']>, { ok: true }>,
    signal: AbortSignal,
  ): Promise<Performed<WriteFailure>> {
    // A PlatformConnection's URLs are its tenant's choice: the probe must not be an oracle
    // for what answers at internal addresses.
    const get = connection.kind === 'PlatformConnection' ? this.tenantGet : undefined;
    const outcome = await this.probe(access.client, access.endpoints, signal, get);
    if (signal.aborted) return awaitChange;
    const labels = labelsOf(connection);
    const previous = this.memory.get(key);
    const failuresBefore = previous?.failures ?? 0;
    const healthy = probeHealthy(outcome);
    const delay = nextProbeDelay(outcome, healthy ? 0 : failuresBefore, this.timings, this.random);
    const now = this.options.clock.now();
    this.memory.set(key, {
      nextAt: now + delay,
      failures: healthy ? 0 : failuresBefore + 1,
      generation: connection.metadata.generation ?? 0,
      credentialVersion: access.credentialVersion,
    });
    this.metrics.probed(labels, outcome.auth.kind === 'ok' && !healthy ? 'unreachable' : outcome.auth.kind);
    const budget = budgetUse(access.client);
    const source = credentialSource(connection);
    const updates = probeConditions(
      outcome,
      connection.status?.conditions?.find((c) => c.type === 'Ready'),
      source,
    );
    const status: ConnectionStatus = {
      ...base,
      observedGeneration: connection.metadata.generation ?? 0,
      lastProbeTime: new Date(now).toISOString(),
      rateBudget: { ...budget, sharedWith: this.options.registry.sharing(connection).length },
    };
    this.metrics.state(
      labels,
      updates[0]?.status === 'True',
      updates[1]?.status === 'True',
      budget.availablePercent / 100,
    );
    if (!healthy) {
      this.options.logger.info(
        {
          connection: describeConnection(
            connection.kind,
            connection.metadata.namespace,
            connection.metadata.name,
          ),
          auth: outcome.auth.kind,
          nextProbeMs: Math.round(delay),
        },
        'connection probe failed; backing off',
      );
    }
    const published = await this.publish(connection, status, updates, healthy ? 'Normal' : 'Warning', signal);
    return published ?? requeueAfter(delay);
  }

  /** Writes status if it changed; an event for each condition that changed its reason. Returns a result only on failure. */
  private async publish(
    connection: PlatformConnectionObject,
    status: ConnectionStatus,
    updates: readonly ConnectionConditionUpdate[],
    eventType: 'Normal' | 'Warning',
    signal: AbortSignal,
  ): Promise<Performed<WriteFailure> | undefined> {
    const generation = connection.metadata.generation ?? 0;
    const before = connection.status?.conditions;
    const conditions = withConditions(before, updates, generation, new Date(this.options.clock.now()));
    const next: ConnectionStatus = { ...status, conditions };
    // Sharded, shardUsers is a list that a merge patch replaces whole, and usedBy is its sum: a
    // write that changes them is guarded by resourceVersion, so that another shard's entry
    // written meanwhile is not lost (a Conflict re-reads and retries at once). Unsharded, this
    // process is the only one counting: its writes stay unguarded, as they always were.
    const guarded =
      this.options.shard !== undefined &&
      (!sameJson(connection.status?.shardUsers, next.shardUsers) ||
        connection.status?.usedBy !== next.usedBy);
    const published = await publishStatus(this.options.kube, connection, next, signal, { guarded });
    if (published.kind === 'failed') return failure(published.outcome);
    if (published.kind === 'unchanged') return undefined;
    const moved = new Set(conditionTransitions(before, conditions).map((condition) => condition.type));
    for (const update of updates) {
      if (!moved.has(update.type)) continue;
      const type = update.status === 'True' ? 'Normal' : eventType;
      this.options.kube.event(connection, type, update.reason, update.message);
    }
    return undefined;
  }
}

/**
 * Who holds a deleting connection. Unsharded, this process sees every user: it names them (ten
 * at most). Sharded, every shard's leader writes this condition, each seeing only its own
 * users: the message is built from the entries all shards agree on (this shard's count folded
 * in), so that each shard writes the same words and none rewrites the others' every recheck.
 */
function holdMessage(users: readonly string[], shardUsers: readonly ShardUsers[] | undefined): string {
  if (shardUsers !== undefined) {
    const using = shardUsers.filter((entry) => entry.usedBy > 0);
    const total = using.reduce((sum, entry) => sum + entry.usedBy, 0);
    const shards = using.map((entry) => `${entry.shard}: ${entry.usedBy}`).join(', ');
    return `${total} AgentDeployment(s) still use this connection, by shard: ${shards}`;
  }
  const shown = users.slice(0, 10).join(', ');
  const more = users.length > 10 ? ` and ${users.length - 10} more` : '';
  return `${users.length} AgentDeployment(s) still use this connection: ${shown}${more}`;
}

function labelsOf(connection: PlatformConnectionObject): ConnectionLabels {
  return {
    kind: connection.kind,
    namespace: connection.metadata.namespace ?? '',
    name: connection.metadata.name,
  };
}

function readyOf(connection: PlatformConnectionObject, type: 'Ready' | 'Reachable'): boolean {
  return connection.status?.conditions?.find((c) => c.type === type)?.status === 'True';
}

/** Which Secret key the credential comes from, for messages (never its value). */
function credentialSource(connection: PlatformConnectionObject): string {
  const field = connection.spec.apiKeySecretRef === undefined ? 'bearerTokenSecretRef' : 'apiKeySecretRef';
  const ref = connection.spec.apiKeySecretRef ?? connection.spec.bearerTokenSecretRef;
  return `spec.${field} (Secret "${ref?.name ?? ''}", key "${ref?.key ?? ''}")`;
}

function budgetUse(client: ControlPlaneClient): { limit: string; availablePercent: number } {
  const [row] = client.budget
    .report({
      method: 'GET',
      path: `${client.endpoint.pathPrefix}/v2/deployments`,
      credentialFingerprint: client.credentialFingerprint,
    })
    .filter((report) => report.identity === 'api-key');
  if (row === undefined) return { limit: 'none', availablePercent: 100 };
  const free = row.blockedForMs > 0 ? 0 : row.tokens / Math.max(row.capacity, 1);
  return {
    limit: `${row.limit.count}/${row.limit.windowSeconds}s`,
    availablePercent: Math.max(0, Math.min(100, Math.round(free * 100))),
  };
}
