// The connection reconciler's shell: observe (caches, the registry's view of the credential,
// what this process remembers of the last probe), decide (pure), perform one action, publish
// status only when it changed. Keys are `PlatformConnection/<namespace>/<name>` and
// `ClusterPlatformConnection//<name>` (connectionIndexValue).
import type { Logger } from 'pino';
import {
  CONNECTION_FINALIZER,
  type ConnectionStatus,
  type PlatformConnectionObject,
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
  /** `namespace/name` of the AgentDeployments that name the connection. */
  usersOf(connection: PlatformConnectionObject): string[];
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
        observe: () => this.observe(key),
        decide: (facts) =>
          decideConnection({
            generation: facts.connection.metadata.generation ?? 0,
            deleting: facts.connection.metadata.deletionTimestamp !== undefined,
            hasFinalizer: hasFinalizer(facts.connection, CONNECTION_FINALIZER),
            users: facts.users,
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

  private observe(key: string): Observation<ConnectionFacts, WriteFailure> {
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
    return { facts: { connection, users, access: this.options.registry.clientFor(connection) } };
  }

  private async perform(
    key: string,
    action: ConnectionAction,
    { connection, users, access }: ConnectionFacts,
    signal: AbortSignal,
  ): Promise<Performed<WriteFailure>> {
    const base = { ...connection.status, endpoint: access.endpoints.display, usedBy: users.length };
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
        const shown = action.users.slice(0, 10).join(', ');
        const more = action.users.length > 10 ? ` and ${action.users.length - 10} more` : '';
        const message = `Deletion waits: ${action.users.length} AgentDeployment(s) still use this connection: ${shown}${more}`;
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
      case 'probe':
        if (!access.ok) return awaitChange;
        return this.probeAndPublish(key, connection, base, access, signal);
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
    const published = await publishStatus(this.options.kube, connection, next, signal);
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
