// reconcile(key) for AgentDeployment, the I/O shell around the pure `decide`:
//
//   observe (cache, fleet, memory, now) → decide → [one more read → decide]… → perform → publish
//
// It is level-triggered and idempotent: it never asks why it was called. `perform` makes at
// most one control-plane mutation; `publish` writes status only when it changed. Failures
// are values handed to the one `errorPolicy`. The AbortSignal from the controller reaches
// every call, so losing the lease stops the pass before its next write. The one call that
// may take long, the smoke test of a deployed revision, runs in the background with its own
// deadline: the pass returns at once and the call's end wakes the key.
import type { Logger } from 'pino';
import type { Deployment, DeploymentCreateRequest, Secret } from '../../controlplane/models/index.js';
import { SMOKE_TEST_DEFAULT_TIMEOUT_SECONDS } from '../../api/agentdeployment/index.js';
import { isRetryable } from '../../agentruntime/errors.js';
import type { AgentTrust } from '../../egress/agent-credential.js';
import type { Clock } from '../../runtime/clock.js';
import { addFinalizer, removeFinalizer } from '../../runtime/reconcile/finalizers.js';
import { publishStatus } from '../../runtime/reconcile/status-publisher.js';
import {
  awaitChange,
  backoff,
  failed,
  requeueAfter,
  requeueNow,
  type ReconcileResult,
} from '../../runtime/reconcile/result.js';
import type { Action, EventSpec, PublishOptions } from './action.js';
import { isReadyAt } from './conditions.js';
import { decide, isTerminalRevisionStatus, recheckDelayMs, specKey } from './decide.js';
import { DEFAULT_TIMINGS, type ReconcilerTimings } from './defaults.js';
import { errorPolicy } from './error-policy.js';
import { decideFailedWrite } from './failed-write.js';
import { KeyMemoryStore, type KeyMemory } from './key-memory.js';
import { olderOwnerOf, rivalFor } from './name-claims.js';
import {
  DEPLOYMENT_ID_ANNOTATION,
  FINALIZER,
  RECONCILE_REQUESTED_AT_ANNOTATION,
  REDEPLOY_AT_ANNOTATION,
  generationOf,
  hasFinalizer,
  isDeploymentId,
  ownedDeploymentId,
  ownershipOf,
  recordedSecretVersions,
  type AgentDeploymentView,
} from './object.js';
import type {
  DeploymentReading,
  NameReading,
  Observed,
  RefusedAttempt,
  RefusedCreate,
  SmokeTestOutcome,
  SpecReading,
} from './observed.js';
import type { ObservationCache } from './observation/observation-cache.js';
import type { FleetPoller } from './observation/fleet-poller.js';
import type {
  AgentCallPort,
  ControlPlaneLane,
  ControlPlanePort,
  Failure,
  FleetPort,
  KubePort,
  LaneResolution,
  OrphanRecordsPort,
  NameLookup,
  Outcome,
  ResolvedIds,
} from './ports.js';
import { referencedSecretNames, resolveSecrets } from './secrets.js';
import { judgeAnswer, quote, smokeTestSpecHash } from './smoke-test.js';
import { nextStatus, revisionOutcome, smokeTestOutcome, statusChanged, type StatusFacts } from './status.js';
import { isStalled, type SyncState } from './sync-state.js';
import type { DomainMetrics } from './domain-metrics.js';

export interface ReconcilerDeps<Object extends AgentDeploymentView> {
  /** The default connection's lane: the port, cache and poller of objects without spec.connectionRef. */
  controlPlane: ControlPlanePort;
  kube: KubePort<Object>;
  fleet: FleetPort;
  observations: ObservationCache;
  poller: FleetPoller;
  /** The lane of the object's connection; absent: every object uses the default lane above. */
  connection?: (object: Object) => LaneResolution;
  /** Why the object's spec cannot be understood (it slipped past validation), or undefined. */
  specProblem: (object: Object) => string | undefined;
  /** The wire request the spec asks for, with resolved secret values and named ids. */
  desiredState: (object: Object, secrets: Secret[], ids: ResolvedIds) => DeploymentCreateRequest;
  /** The listener and integration the spec names by name (listenerRef, integrationRef), if any. */
  namedIds?: (object: Object) => { listener?: string; integration?: string };
  deploymentName: (object: Object) => string;
  logger: Logger;
  clock: Pick<Clock, 'now'>;
  metrics?: DomainMetrics;
  timings?: Partial<ReconcilerTimings>;
  /** Calls to deployed agents (spec.smokeTest); without it a smoke test fails, saying so. */
  agents?: AgentCallPort;
  /** Where the default connection's key may be sent besides its control plane (a lane's own trust wins). */
  agentTrust?: AgentTrust;
  /** Enqueues a key: a background smoke-test call that ended wakes its object. */
  wake?: (key: string) => void;
  /** Why adopting an existing deployment is not permitted in `namespace` (the rule), or undefined when it is. Default: permitted everywhere. */
  adoptionForbidden?: (namespace: string) => string | undefined;
  /** Who orphaned which deployment: recorded before an orphaning object lets go, read for adoption. */
  orphans?: OrphanRecordsPort;
}

/** Reads a pass may make before it acts (a name lookup, a deployment, a revision). */
const MAX_READS = 4;
/** Entering these states is worth a Warning event (once: on the transition). */
const WARN_ON_ENTER: ReadonlySet<SyncState['kind']> = new Set([
  'Rejected',
  'NameConflict',
  'InvalidSpec',
  'SecretNotFound',
  'ConnectionNotFound',
  'ConnectionNotReady',
  'ConnectionNotAllowed',
  'SmokeTestRefused',
]);
const DEFAULT_LANE_ID = 'default';

export class AgentDeploymentReconciler<Object extends AgentDeploymentView> {
  private readonly memory = new KeyMemoryStore();
  private readonly timings: ReconcilerTimings;
  /** Ends the background smoke-test calls when the operator stops. */
  private readonly background = new AbortController();
  private readonly defaultLane: ControlPlaneLane;
  /** The lane each key's calls go through (the controller runs one pass per key at a time). */
  private readonly lanes = new Map<string, ControlPlaneLane>();

  constructor(private readonly deps: ReconcilerDeps<Object>) {
    this.timings = { ...DEFAULT_TIMINGS, ...deps.timings };
    this.defaultLane = {
      id: DEFAULT_LANE_ID,
      controlPlane: deps.controlPlane,
      observations: deps.observations,
      poller: deps.poller,
    };
  }

  /** Aborts the smoke-test calls still running; their outcomes are dropped. */
  stop(): void {
    this.background.abort();
  }

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const object = this.deps.kube.get(key);
    if (!object) {
      this.memory.forget(key);
      this.laneOf(key).poller.untrackKey(key);
      this.lanes.delete(key);
      return awaitChange;
    }
    const loaded = await this.deps.kube.loadSecrets?.(
      object.metadata.namespace,
      referencedSecretNames(object.spec.secrets),
      signal,
    );
    if (loaded && !loaded.ok) return this.onFailure(object, loaded.error, signal);
    const connection = this.deps.connection?.(object) ?? { ok: true, lane: this.defaultLane };
    // A refused connection gets no lane: decide makes no call then, only status is written.
    if (connection.ok) this.enterLane(key, connection.lane);
    const ids =
      connection.ok && object.metadata.deletionTimestamp === undefined
        ? await this.resolveIds(object, connection.lane, signal)
        : { ok: true as const, ids: {} };
    if (signal.aborted) return awaitChange;
    let observed = this.observe(key, object, connection, ids);
    for (let reads = 0; reads <= MAX_READS && !signal.aborted; reads += 1) {
      const action = decide(observed, this.timings);
      if (action.kind === 'observeDeployment') {
        observed = {
          ...observed,
          deployment: await this.readDeployment(key, action.id, action.maxAgeMs, signal),
        };
      } else if (action.kind === 'observeName') {
        observed = await this.readName(key, observed, action.name, signal);
      } else if (action.kind === 'observeRevision') {
        observed = await this.readRevision(key, observed, action.deploymentId, action.revisionId, signal);
      } else {
        return signal.aborted ? awaitChange : this.perform(key, object, observed, action, signal);
      }
    }
    if (!signal.aborted) this.deps.logger.error({ key }, 'reconcile asked for more reads than allowed');
    return signal.aborted ? awaitChange : backoff;
  }

  // ---- observe ----------------------------------------------------------------------------

  /** The control plane behind a connection is another one: what was known of the key there no longer holds. */
  private enterLane(key: string, lane: ControlPlaneLane): void {
    const previous = this.lanes.get(key);
    if (previous !== undefined && previous.id !== lane.id) {
      previous.poller.untrackKey(key);
      this.memory.forget(key);
    }
    this.lanes.set(key, lane);
  }

  private laneOf(key: string): ControlPlaneLane {
    return this.lanes.get(key) ?? this.defaultLane;
  }

  /** The ids the spec names by name, looked up on the object's own control plane. */
  private async resolveIds(object: Object, lane: ControlPlaneLane, signal: AbortSignal): Promise<IdsReading> {
    const named = this.deps.namedIds?.(object) ?? {};
    const ids: ResolvedIds = {};
    const lookups: Array<[keyof ResolvedIds, string, string | undefined]> = [
      ['listenerId', 'spec.sourceConfig.listenerRef.name', named.listener],
      ['integrationId', 'spec.sourceConfig.integrationRef.name', named.integration],
    ];
    for (const [field, path, name] of lookups) {
      if (name === undefined) continue;
      const found: NameLookup = lane.names
        ? await (field === 'listenerId'
            ? lane.names.listenerId(name, signal)
            : lane.names.integrationId(name, signal))
        : { ok: false, unknown: 'names cannot be resolved on this connection; give the id' };
      if (found.ok) ids[field] = found.id;
      else if ('unknown' in found)
        return { ok: false, spec: { kind: 'unknownName', message: `${path}: ${found.unknown}` } };
      else return { ok: false, spec: { kind: 'namesFailed', error: found.error } };
    }
    return { ok: true, ids };
  }

  private observe(key: string, object: Object, connection: LaneResolution, ids: IdsReading): Observed {
    const now = this.deps.clock.now();
    const uid = object.metadata.uid ?? '';
    const ownership = ownershipOf(object);
    const ownedId = ownedDeploymentId(object);
    const createRequestedAt = ownership?.createRequestedAt
      ? Date.parse(ownership.createRequestedAt)
      : undefined;
    const annotations = object.metadata.annotations ?? {};
    const hint = annotations[DEPLOYMENT_ID_ANNOTATION];
    const hintedDeploymentId = isDeploymentId(hint) ? hint : undefined;
    const name = this.deploymentNameOf(object);
    const observedObject = {
      key,
      uid,
      generation: generationOf(object),
      deleting: object.metadata.deletionTimestamp !== undefined,
      hasFinalizer: hasFinalizer(object),
      suspend: object.spec.suspend === true,
      adoptExisting: object.spec.adoptExisting === true,
      deletionPolicy: object.spec.deletionPolicy ?? 'Delete',
      deploymentName: name,
      ...(hintedDeploymentId !== undefined ? { hintedDeploymentId } : {}),
      ...(annotations[REDEPLOY_AT_ANNOTATION] !== undefined
        ? { redeployAt: annotations[REDEPLOY_AT_ANNOTATION] }
        : {}),
      ...(annotations[RECONCILE_REQUESTED_AT_ANNOTATION] !== undefined
        ? { reconcileRequestedAt: annotations[RECONCILE_REQUESTED_AT_ANNOTATION] }
        : {}),
      ...smokeTestOf(object),
    };
    const claims: Record<string, string> = {};
    if (hintedDeploymentId !== undefined) this.noteClaim(claims, key, hintedDeploymentId);
    const memory = this.memory.get(key);
    const spec = this.readSpec(object, ids);
    const self = { key, uid, creationTimestamp: object.metadata.creationTimestamp ?? '' };
    // Names are unique per control plane: only objects on this object's lane compete for one.
    const claimants = connection.ok ? this.deps.fleet.claimantsOf(name, connection.lane.id) : [];
    const disputedBy =
      ownedId === undefined ? undefined : olderOwnerOf({ ...self, ownedDeploymentId: ownedId }, claimants);
    const adoptionForbidden = this.deps.adoptionForbidden?.(object.metadata.namespace);
    // Only a pass that may adopt (adoptExisting, or a deployment-id hint) needs the records.
    const mayAdopt = observedObject.adoptExisting || hintedDeploymentId !== undefined;
    const orphanedHere =
      adoptionForbidden === undefined || !mayAdopt
        ? []
        : (this.deps.orphans?.orphanedBy(object.metadata.namespace) ?? []);
    const observed: Observed = {
      now,
      object: observedObject,
      status: object.status ?? {},
      ownership: {
        ...(ownedId !== undefined ? { deploymentId: ownedId } : {}),
        ...(disputedBy !== undefined ? { disputedBy } : {}),
        ...(createRequestedAt !== undefined && !Number.isNaN(createRequestedAt) ? { createRequestedAt } : {}),
      },
      spec,
      ...(adoptionForbidden !== undefined ? { adoptionForbidden } : {}),
      ...(orphanedHere.length > 0 ? { orphanedHere } : {}),
      claims,
      deployment: { kind: 'unobserved' },
      byName: { kind: 'unobserved' },
      knownRevisions: Object.fromEntries(memory.revisionStatus),
      revisionPoll: {
        allowed:
          connection.ok &&
          now >= memory.nextRevisionPollAt &&
          connection.lane.controlPlane.budgetHeadroom() >= this.timings.revisionPollMinHeadroom,
        dueInMs: memory.nextRevisionPollAt - now,
      },
      ...(memory.smokeTest ? { smokeTestAttempts: { ...memory.smokeTest } } : {}),
      ...(memory.refusedCreate ? { refusedCreate: memory.refusedCreate } : {}),
    };
    if (!connection.ok) {
      const { reason, message } = connection;
      return { ...observed, connectionRefused: { reason, message } };
    }
    const agentTrust = connection.agentTrust ?? this.deps.agentTrust;
    if (agentTrust !== undefined) observed.agentTrust = agentTrust;
    if (connection.label !== undefined) observed.connectionLabel = connection.label;
    const rival = ownedId === undefined ? rivalFor(self, claimants) : undefined;
    const refused = memory.refused ?? refusedFromStatus(observed);
    return { ...observed, ...(rival !== undefined ? { rival } : {}), ...(refused ? { refused } : {}) };
  }

  private deploymentNameOf(object: Object): string {
    try {
      return this.deps.deploymentName(object);
    } catch {
      return object.metadata.name;
    }
  }

  private readSpec(object: Object, ids: IdsReading): SpecReading {
    const problem = this.deps.specProblem(object);
    if (problem !== undefined) return { kind: 'invalid', message: problem };
    if (!ids.ok) return ids.spec;
    const resolution = resolveSecrets(object.spec.secrets, (name) =>
      this.deps.kube.getSecret(object.metadata.namespace, name),
    );
    if (!resolution.ok) return { kind: 'secretMissing', message: resolution.message };
    try {
      return {
        kind: 'valid',
        desired: this.deps.desiredState(object, resolution.secrets, ids.ids),
        secretVersions: resolution.versions,
      };
    } catch (error) {
      return { kind: 'invalid', message: `spec: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  private noteClaim(claims: Record<string, string>, key: string, id: string): void {
    const owner = this.deps.fleet.ownerOf(id);
    if (owner !== undefined && owner !== key) claims[id] = owner;
  }

  private async readDeployment(
    key: string,
    id: string,
    maxAgeMs: number,
    signal: AbortSignal,
  ): Promise<DeploymentReading> {
    const now = this.deps.clock.now();
    if (maxAgeMs > 0) {
      const cached = this.laneOf(key).observations.fresh(id, maxAgeMs, now);
      if (cached?.kind === 'present') return { kind: 'present', deployment: cached.deployment };
      // The poller wakes one key per id: an object whose record another object disputes
      // reads by GET, so that it cannot take the owner's wake-ups.
      const follower = this.deps.poller.followerOf(id);
      if (cached === undefined && (follower === undefined || follower === key)) {
        // Batched: the poller fetches it with up to 99 others and enqueues this key.
        this.laneOf(key).poller.want(id, key);
        // While its rounds fail, say so rather than wait silently (it retries after its backoff).
        const failing = this.laneOf(key).poller.lastFailure;
        if (failing) return { kind: 'failed', error: failing };
        return { kind: 'pending', retryAfterMs: this.timings.inflightPollMs * 2 };
      }
    }
    // Asked for now, or a list did not return it: a GET decides.
    const result = await this.laneOf(key).controlPlane.getDeployment(id, signal);
    if (result.ok) {
      this.laneOf(key).observations.recordPresent(result.value, this.deps.clock.now());
      return { kind: 'present', deployment: result.value };
    }
    if (result.error.kind === 'NotFound') return { kind: 'gone' };
    return { kind: 'failed', error: result.error };
  }

  private async readName(
    key: string,
    observed: Observed,
    name: string,
    signal: AbortSignal,
  ): Promise<Observed> {
    const result = await this.laneOf(key).controlPlane.findDeploymentsByName(name, signal);
    if (!result.ok) return { ...observed, byName: { kind: 'failed', error: result.error } };
    const claims = { ...observed.claims };
    for (const deployment of result.value) this.noteClaim(claims, key, deployment.id);
    const byName: NameReading = { kind: 'found', deployments: result.value };
    return { ...observed, byName, claims };
  }

  private async readRevision(
    key: string,
    observed: Observed,
    deploymentId: string,
    revisionId: string,
    signal: AbortSignal,
  ): Promise<Observed> {
    const memory = this.memory.get(key);
    const now = this.deps.clock.now();
    memory.nextRevisionPollAt = now + this.revisionPollIntervalMs(key);
    const revisionPoll = { allowed: false, dueInMs: memory.nextRevisionPollAt - now };
    const revision = await this.laneOf(key).controlPlane.getRevision(deploymentId, revisionId, signal);
    if (!revision.ok) {
      // Optional: the deployment list carries success; a failed poll only delays the news.
      if (revision.error.kind !== 'Throttled') {
        this.deps.logger.debug({ key, error: revision.error.message }, 'revision poll failed');
      }
      return { ...observed, revisionPoll };
    }
    memory.revisionStatus.set(revisionId, revision.value.status);
    return {
      ...observed,
      revisionPoll,
      knownRevisions: { ...observed.knownRevisions, [revisionId]: revision.value.status },
    };
  }

  /**
   * Revision GETs cost one call per object, so their pace is set by how many objects are in
   * flight: all together they may use `revisionPollBudgetShare` of the budget. With a few
   * objects that is every couple of seconds; with a thousand, rarely, and the batched
   * deployment lists (active_revision_id) carry the news of success.
   */
  private revisionPollIntervalMs(key: string): number {
    const callsPerSecond = Math.max(
      this.laneOf(key).controlPlane.allowedRatePerSecond() * this.timings.revisionPollBudgetShare,
      0.001,
    );
    const perObjectMs = (this.laneOf(key).poller.inflightCount / callsPerSecond) * 1000;
    return Math.max(this.timings.minRevisionPollMs, perObjectMs);
  }

  // ---- perform ------------------------------------------------------------------------------

  private async perform(
    key: string,
    object: Object,
    observed: Observed,
    action: Action,
    signal: AbortSignal,
  ): Promise<ReconcileResult> {
    switch (action.kind) {
      case 'nothing':
        return awaitChange;
      case 'wait':
        return requeueAfter(action.requeueAfterMs);
      case 'fail':
        return this.onFailure(object, action.error, signal);
      case 'publish':
        return this.publishState(key, object, action.state, action.facts, action, signal);
      case 'addFinalizer': {
        const result = await addFinalizer(this.deps.kube, object, FINALIZER, signal);
        return result.ok ? requeueNow : this.onFailure(object, writeFailure(result), signal);
      }
      case 'create':
        return this.create(key, object, action.request, action.facts, action.specKey, signal);
      case 'adopt':
        return this.adopt(key, object, action.deployment, action.reason, signal);
      case 'patch':
        return this.patch(key, object, action, signal);
      case 'forget': {
        this.laneOf(key).poller.untrack(action.id);
        this.memory.forget(key);
        const message = `Deployment ${action.id} no longer exists on the control plane; creating it again`;
        this.deps.kube.event(object, 'Warning', 'DeploymentGone', message);
        const published = await this.publish(
          object,
          { kind: 'Creating', message },
          { clearIds: true, ownership: { uid: observed.object.uid } },
          signal,
        );
        return published.ok ? requeueNow : this.onFailure(object, published.error, signal);
      }
      case 'delete': {
        const deleted = await this.laneOf(key).controlPlane.deleteDeployment(action.id, signal);
        if (!deleted.ok && decideFailedWrite(action, deleted.error).kind === 'errorPolicy')
          return this.onFailure(object, deleted.error, signal);
        this.deps.kube.event(object, 'Normal', 'Deleting', `Deleting deployment ${action.id}`);
        const published = await this.publish(
          object,
          { kind: 'Deleting', message: `Waiting for deployment ${action.id} to be deleted` },
          {},
          signal,
        );
        return published.ok
          ? requeueAfter(this.timings.deletionPollMs)
          : this.onFailure(object, published.error, signal);
      }
      case 'release':
        return this.release(key, object, action.event, signal, action.orphaned);
      case 'smokeTest':
        return this.smokeTest(key, object, action, signal);
      case 'observeDeployment':
      case 'observeName':
      case 'observeRevision':
        return backoff;
    }
  }

  private async create(
    key: string,
    object: Object,
    request: DeploymentCreateRequest,
    facts: StatusFacts,
    refusedKey: string,
    signal: AbortSignal,
  ): Promise<ReconcileResult> {
    const uid = object.metadata.uid ?? '';
    // The intent goes to status first, guarded by resourceVersion: if the object moved (or
    // another replica acted), the write fails with 409 and nothing is sent.
    const intent = await this.publish(
      object,
      { kind: 'Creating', message: `Creating deployment "${request.name}"` },
      { ...facts, ownership: { uid, createRequestedAt: new Date(this.deps.clock.now()).toISOString() } },
      signal,
      true,
    );
    if (!intent.ok) return this.onFailure(object, intent.error, signal);
    if (signal.aborted) return awaitChange;
    let current = intent.value;
    const created = await this.laneOf(key).controlPlane.createDeployment(request, signal);
    if (!created.ok) {
      const error = created.error;
      const step = decideFailedWrite({ kind: 'create', request, facts, specKey: refusedKey }, error);
      if (step.kind === 'rememberRefusedCreate') return this.refused(key, step.refusal, signal);
      // A failure that proves nothing was created clears the intent: no lookup next time.
      const nothingCreated = error.kind !== 'Transient' || error.unclear !== true;
      return this.onFailure(current, error, signal, nothingCreated ? { ownership: { uid } } : {});
    }
    const deployment = created.value;
    const memory = this.memory.get(key);
    memory.refused = undefined;
    this.laneOf(key).observations.recordPresent(deployment, this.deps.clock.now());
    this.rolloutStarted(key, memory, deployment);
    this.deps.kube.event(
      current,
      'Normal',
      'Created',
      `Created deployment ${deployment.id} (${deployment.name})`,
    );
    const revision = deployment.latest_revision_id;
    const recorded = await this.publish(
      current,
      {
        kind: 'RevisionInProgress',
        message: revision ? `Revision ${revision} is CREATING` : 'Waiting for the first revision',
      },
      {
        ...facts,
        deployment,
        latestRevisionStatus: 'CREATING',
        ownership: { uid, deploymentId: deployment.id },
      },
      signal,
    );
    if (!recorded.ok) return this.onFailure(current, recorded.error, signal);
    current = recorded.value;
    this.laneOf(key).poller.track(deployment.id, key, 'inflight');
    return requeueAfter(
      Math.max(memory.nextRevisionPollAt - this.deps.clock.now(), this.timings.minRevisionPollMs),
    );
  }

  /**
   * The control plane refused the create. What that means (a name clash or another reason)
   * is decide's: the refusal is remembered and the object looked at again within this pass,
   * so that decide asks for the name lookup and the verdict is published at once (until it
   * is, status still records the create intent). That look cannot POST again: the refusal's
   * rung comes first, and deletion recovers nothing for a refused create.
   */
  private refused(key: string, refusal: RefusedCreate, signal: AbortSignal): Promise<ReconcileResult> {
    this.memory.get(key).refusedCreate = refusal;
    return this.reconcile(key, signal);
  }

  /** Records a refusal; returns when to re-check although nothing changed. */
  private remember(key: string, refused: NonNullable<PublishOptions['refused']>, message: string): number {
    const memory = this.memory.get(key);
    const previous = memory.refused;
    const recheckFailures = previous?.specKey === refused.specKey ? previous.recheckFailures + 1 : 0;
    memory.refused = { ...refused, message, at: this.deps.clock.now(), recheckFailures };
    // A refused create is told apart once: its verdict is this refusal.
    memory.refusedCreate = undefined;
    return recheckDelayMs(recheckFailures, this.timings);
  }

  private async adopt(
    key: string,
    object: Object,
    deployment: Deployment,
    reason: 'Adopted' | 'CreateRecovered',
    signal: AbortSignal,
  ): Promise<ReconcileResult> {
    const published = await this.publish(
      object,
      { kind: 'Creating', message: `Manages deployment ${deployment.id} (${deployment.name})` },
      { deployment, ownership: { uid: object.metadata.uid ?? '', deploymentId: deployment.id } },
      signal,
    );
    if (!published.ok) return this.onFailure(object, published.error, signal);
    this.deps.kube.event(
      object,
      'Normal',
      reason,
      `Manages deployment ${deployment.id} (${deployment.name})`,
    );
    this.laneOf(key).observations.recordPresent(deployment, this.deps.clock.now());
    this.memory.get(key).refused = undefined;
    // Adopted back: the orphan record is spent (a failure only leaves a stale record, which
    // lets this same namespace adopt it again; it is retried at the next adoption).
    await this.deps.orphans?.forget(deployment.id, signal);
    return requeueNow;
  }

  private async patch(
    key: string,
    object: Object,
    action: Extract<Action, { kind: 'patch' }>,
    signal: AbortSignal,
  ): Promise<ReconcileResult> {
    const id = action.deployment.id;
    const patched = await this.laneOf(key).controlPlane.patchDeployment(id, action.patch, signal);
    if (!patched.ok) {
      const step = decideFailedWrite(action, patched.error);
      if (step.kind === 'lookAgain') return requeueNow;
      if (step.kind !== 'publishRefusal') return this.onFailure(object, patched.error, signal);
      return this.publishState(key, object, step.state, step.facts, step.options, signal);
    }
    const deployment = patched.value;
    const memory = this.memory.get(key);
    memory.refused = undefined;
    this.laneOf(key).observations.recordPresent(deployment, this.deps.clock.now());
    this.warn(object, action.warnings);
    const what = action.changedFields.join(', ');
    if (action.drift) {
      this.deps.kube.event(
        object,
        'Warning',
        'DriftCorrected',
        `Changed outside the operator and re-applied: ${what}`,
      );
    } else {
      this.deps.kube.event(object, 'Normal', 'Updated', `Updated ${what}`);
    }
    if (!action.createsRevision) return requeueNow;
    this.deps.kube.event(
      object,
      'Normal',
      'NewRevision',
      `Revision ${deployment.latest_revision_id ?? '?'} started`,
    );
    this.rolloutStarted(key, memory, deployment);
    const revision = deployment.latest_revision_id ?? '?';
    const published = await this.publish(
      object,
      { kind: 'RevisionInProgress', message: `Revision ${revision} is CREATING` },
      { ...action.facts, deployment, latestRevisionStatus: 'CREATING' },
      signal,
    );
    if (!published.ok) return this.onFailure(object, published.error, signal);
    this.laneOf(key).poller.track(id, key, 'inflight');
    return requeueAfter(
      Math.max(memory.nextRevisionPollAt - this.deps.clock.now(), this.timings.minRevisionPollMs),
    );
  }

  /**
   * Starts one smoke-test call and returns without waiting for it: a slow or warming agent
   * holds no worker. The outcome lands in this key's memory and wakes the key; `decide`
   * turns it into a verdict or a retry after backoff.
   */
  private async smokeTest(
    key: string,
    object: Object,
    action: Extract<Action, { kind: 'smokeTest' }>,
    signal: AbortSignal,
  ): Promise<ReconcileResult> {
    const memory = this.memory.get(key);
    const previous = memory.smokeTest?.testKey === action.testKey ? memory.smokeTest : undefined;
    const attempt = {
      testKey: action.testKey,
      attempts: (previous?.attempts ?? 0) + 1,
      firstAttemptAt: previous?.firstAttemptAt ?? this.deps.clock.now(),
      inFlight: true,
    };
    memory.smokeTest = attempt;
    void this.callAgent(key, action).then((outcome) => {
      // A newer test (another revision or spec) replaced this one, or the operator stops:
      // its outcome is moot.
      if (this.background.signal.aborted) return;
      if (memory.smokeTest !== attempt || this.memory.peek(key) !== memory) return;
      memory.smokeTest = {
        ...attempt,
        inFlight: false,
        last: outcome,
        lastFinishedAt: this.deps.clock.now(),
      };
      this.deps.wake?.(key);
    });
    this.deps.poller.track(action.deploymentId, key, 'steady');
    const published = await this.publish(object, action.state, action.facts, signal);
    if (!published.ok) return this.onFailure(object, published.error, signal);
    // Safety net only: the call's end wakes the key long before this.
    return requeueAfter(action.timeoutMs + this.timings.smokeTestRetryMs);
  }

  private async callAgent(
    key: string,
    action: Extract<Action, { kind: 'smokeTest' }>,
  ): Promise<SmokeTestOutcome> {
    const agents = this.deps.agents;
    if (!agents) return { kind: 'failed', message: 'the operator has no agent runtime client' };
    const started = this.deps.clock.now();
    let outcome: SmokeTestOutcome;
    try {
      const answer = await agents.runOnce(
        key,
        { url: action.url, credential: action.credential, input: action.input, timeoutMs: action.timeoutMs },
        this.background.signal,
      );
      if (!answer.ok) {
        const message = `${answer.error.kind}: ${answer.error.message}`;
        outcome = { kind: isRetryable(answer.error) ? 'retryable' : 'failed', message };
      } else {
        const judged = judgeAnswer(answer.value.values, action.expect, (text) => agents.redact(key, text));
        outcome = judged.passed
          ? { kind: 'passed', message: `the agent answered ${quote(judged.reply)}` }
          : { kind: 'failed', message: judged.reason };
      }
    } catch (error) {
      outcome = { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
    }
    const seconds = (this.deps.clock.now() - started) / 1000;
    const result = outcome.kind === 'passed' ? 'passed' : outcome.kind === 'failed' ? 'failed' : 'retry';
    this.deps.metrics?.smokeTestCalled?.(result, seconds);
    const redacted = { ...outcome, message: agents.redact(key, outcome.message) };
    // Nothing of this call is quoted any more: the port forgets a tenant key it read for it.
    agents.release?.(key);
    return redacted;
  }

  private async release(
    key: string,
    object: Object,
    event: EventSpec | undefined,
    signal: AbortSignal,
    orphaned?: string,
  ): Promise<ReconcileResult> {
    // The record comes first: released without it, the deployment would be adoptable only
    // from --adoption-namespaces (safe, but the team that orphaned it could not take it back).
    if (orphaned !== undefined && this.deps.orphans !== undefined) {
      const recorded = await this.deps.orphans.record(
        orphaned,
        {
          namespace: object.metadata.namespace,
          name: object.metadata.name,
          orphanedAt: new Date(this.deps.clock.now()).toISOString(),
        },
        signal,
      );
      if (!recorded.ok) return this.onFailure(object, recorded.error, signal);
    }
    // Only what this key follows: a forged record must not stop the owner's observation.
    this.laneOf(key).poller.untrackKey(key);
    const released = await removeFinalizer(this.deps.kube, object, FINALIZER, signal);
    if (!released.ok) return this.onFailure(object, writeFailure(released), signal);
    if (event) this.deps.kube.event(object, event.type, event.reason, event.message);
    this.memory.forget(key);
    return awaitChange;
  }

  private warn(object: Object, warnings: readonly string[] | undefined): void {
    for (const message of warnings ?? []) this.deps.kube.event(object, 'Warning', 'CannotClear', message);
  }

  /** A revision the control plane just made is CREATING: no GET is needed to know that. */
  private rolloutStarted(key: string, memory: KeyMemory, deployment: Deployment): void {
    const revision = deployment.latest_revision_id;
    if (!revision) return;
    const now = this.deps.clock.now();
    memory.rolloutStartedAt.set(revision, now);
    memory.revisionStatus.set(revision, 'CREATING');
    memory.nextRevisionPollAt = now + this.revisionPollIntervalMs(key);
  }

  // ---- publish and failures -----------------------------------------------------------------

  private async publishState(
    key: string,
    object: Object,
    state: SyncState,
    facts: StatusFacts,
    options: PublishOptions,
    signal: AbortSignal,
  ): Promise<ReconcileResult> {
    let requeueAfterMs = options.requeueAfterMs;
    if (options.refused) requeueAfterMs = this.remember(key, options.refused, state.message);
    const track = options.track;
    if (track?.mode === 'want') this.laneOf(key).poller.want(track.id, key);
    else if (track) this.laneOf(key).poller.track(track.id, key, track.mode);
    const published = await this.publish(object, state, facts, signal);
    if (!published.ok) return this.onFailure(object, published.error, signal);
    if (published.value !== object) this.warn(object, options.warnings);
    return requeueAfterMs === undefined ? awaitChange : requeueAfter(requeueAfterMs);
  }

  /** Writes status if it changed; events for transitions come from the same comparison. */
  private async publish(
    object: Object,
    state: SyncState,
    facts: StatusFacts,
    signal: AbortSignal,
    guarded = false,
  ): Promise<Outcome<Object>> {
    const now = new Date(this.deps.clock.now());
    const status = nextStatus(object, state, facts, now);
    status.lastSyncTime = now.toISOString();
    const published = await publishStatus(this.deps.kube, object, status, signal, {
      guarded,
      changed: statusChanged,
    });
    if (published.kind === 'failed') return { ok: false, error: writeFailure(published.outcome) };
    if (published.kind === 'written') this.announce(object, state, status);
    return { ok: true, value: published.object };
  }

  private announce(object: Object, state: SyncState, status: NonNullable<Object['status']>): void {
    const previous = object.status;
    const ready = previous?.conditions?.find((condition) => condition.type === 'Ready');
    const entered = ready?.reason !== state.kind || ready.message !== state.message;
    if (WARN_ON_ENTER.has(state.kind) && entered) {
      this.deps.kube.event(object, 'Warning', state.kind, state.message);
      if (isStalled(state)) this.deps.logger.info({ reason: state.kind, message: state.message }, 'stalled');
    }
    const verdict = smokeTestOutcome(previous, status);
    if (verdict?.result === 'Passed') {
      this.deps.kube.event(
        object,
        'Normal',
        'SmokeTestPassed',
        `Revision ${verdict.revisionId}: ${verdict.message}`,
      );
    } else if (verdict) {
      this.deps.kube.event(
        object,
        'Warning',
        'SmokeTestFailed',
        `Revision ${verdict.revisionId}: ${verdict.message}`,
      );
    }
    const outcome = revisionOutcome(previous, status, isTerminalRevisionStatus);
    if (!outcome) return;
    const started = this.memory.get(objectKeyOf(object)).rolloutStartedAt.get(outcome.revisionId);
    this.deps.metrics?.revisionFinished(
      outcome.status,
      started === undefined ? undefined : (this.deps.clock.now() - started) / 1000,
    );
    if (outcome.status === 'DEPLOYED') {
      this.deps.kube.event(object, 'Normal', 'Deployed', `Revision ${outcome.revisionId} is deployed`);
    } else {
      this.deps.kube.event(
        object,
        'Warning',
        'RevisionFailed',
        `Revision ${outcome.revisionId} ended ${outcome.status}`,
      );
    }
  }

  private async onFailure(
    object: Object,
    error: Failure,
    signal: AbortSignal,
    facts: StatusFacts = {},
  ): Promise<ReconcileResult> {
    if (signal.aborted) return awaitChange;
    const decision = errorPolicy(error);
    this.deps.metrics?.reconcileFailed?.(decision.label);
    // A settled object stays Ready through a failed resync: the agent still runs.
    const showState =
      decision.state !== undefined &&
      (decision.then.kind === 'stall' || !isReadyAt(object.status?.conditions, generationOf(object)));
    if (decision.state && showState) {
      const published = await this.publish(object, decision.state, facts, signal);
      if (!published.ok && published.error.kind === 'Conflict') return requeueNow;
    }
    switch (decision.then.kind) {
      case 'requeueAfter':
        return requeueAfter(decision.then.ms);
      case 'backoff':
        this.deps.logger.debug(
          { key: objectKeyOf(object), class: decision.label, error: error.message },
          'backing off',
        );
        return failed({ message: error.message, logged: true });
      case 'requeueNow':
        return requeueNow;
      case 'stall':
        return awaitChange;
    }
  }
}

/** spec.smokeTest as decide reads it, with its digest; the API server defaults timeoutSeconds. */
function smokeTestOf(object: AgentDeploymentView): {
  smokeTest?: NonNullable<Observed['object']['smokeTest']>;
} {
  const configured = object.spec.smokeTest;
  if (!configured) return {};
  const spec = {
    ...configured,
    timeoutSeconds: configured.timeoutSeconds ?? SMOKE_TEST_DEFAULT_TIMEOUT_SECONDS,
  };
  return { smokeTest: { spec, hash: smokeTestSpecHash(spec) } };
}

/** The named ids of a pass, or the spec reading that says why they are not there. */
type IdsReading = { ok: true; ids: ResolvedIds } | { ok: false; spec: SpecReading };

/** A failed Kubernetes write as the error policy reads it: a 409 is a Conflict, anything else Transient. */
function writeFailure(outcome: {
  reason: 'Conflict' | 'Gone' | 'Failed';
  message: string;
  status?: number;
}): Failure {
  return {
    kind: outcome.reason === 'Conflict' ? 'Conflict' : 'Transient',
    message: outcome.message,
    ...(outcome.status === undefined ? {} : { status: outcome.status }),
  };
}

function objectKeyOf(object: AgentDeploymentView): string {
  return `${object.metadata.namespace}/${object.metadata.name}`;
}

/**
 * After a restart, memory is empty, but status still says the control plane refused this
 * generation: treat that as the last attempt (at the condition's transition time), so a
 * restart does not send it again before the re-check is due.
 */
function refusedFromStatus(observed: Observed): RefusedAttempt | undefined {
  const stalled = observed.status.conditions?.find((condition) => condition.type === 'Stalled');
  if (stalled?.status !== 'True' || stalled.reason !== 'Rejected') return undefined;
  if (stalled.observedGeneration !== observed.object.generation) return undefined;
  const versions = observed.spec.kind === 'valid' ? observed.spec.secretVersions : {};
  const recorded = recordedSecretVersions(observed.status);
  const same =
    Object.keys(versions).length === Object.keys(recorded).length &&
    Object.entries(versions).every(([name, version]) => recorded[name] === version);
  if (!same) return undefined;
  return {
    specKey: specKey(observed),
    reason: 'Rejected',
    message: stalled.message,
    at: Date.parse(stalled.lastTransitionTime),
    recheckFailures: 0,
  };
}
