// reconcile(key) for AgentDeployment: level-triggered and idempotent (ARCHITECTURE.md). It
// never asks why it was called; it reads the object, observes the control plane (usually
// from the batched observation cache, at no cost), acts once, writes status if it changed,
// and says when to look again. Running it twice in a row makes no extra write.
import type { Logger } from 'pino';
import type { Deployment, DeploymentCreateRequest, Secret } from '../../controlplane/models/index.js';
import { isReadyAt } from './conditions.js';
import { equalIgnoringUnset } from './deep-equal.js';
import { diffDeployment } from './diff.js';
import { KeyMemoryStore, type KeyMemory } from './key-memory.js';
import {
  CREATE_PENDING_ANNOTATION,
  DEPLOYMENT_ID_ANNOTATION,
  FINALIZER,
  deploymentIdOf,
  generationOf,
  hasFinalizer,
  isCreatePending,
  type AgentDeploymentView,
} from './object.js';
import type { ObservationCache } from './observation/observation-cache.js';
import type { FleetPoller } from './observation/fleet-poller.js';
import type { ControlPlaneFailure, ControlPlanePort, KubePort } from './ports.js';
import { revisionPhase } from './revision-phase.js';
import { resolveSecrets } from './secrets.js';
import { nextStatus, statusChanged, type StatusFacts } from './status.js';
import type { SyncState } from './sync-state.js';
import { isStalled } from './sync-state.js';
import type { DomainMetrics } from './domain-metrics.js';

export interface ReconcileResult {
  requeueAfterMs?: number;
}

/** Thrown for failures that should be retried with the work queue's per-key backoff. */
export class RetryableReconcileError extends Error {
  override readonly name = 'RetryableReconcileError';
}

export interface ReconcilerOptions {
  /** How old an observation may be while a revision is in flight. */
  inflightPollMs: number;
  /** Steady-state resync period (the poller refreshes and re-enqueues at this pace). */
  resyncPeriodMs: number;
  /** Shortest pause between two revision GETs of one object. */
  minRevisionPollMs: number;
  /** Share of the rate budget that revision GETs may use, summed over all objects. */
  revisionPollBudgetShare: number;
  /** Revision GETs are optional: they are made only while at least this share of the budget is free. */
  revisionPollMinHeadroom: number;
  /** Pause between two checks while a deletion completes. */
  deletionPollMs: number;
}

export const DEFAULT_RECONCILER_OPTIONS: ReconcilerOptions = {
  inflightPollMs: 2_000,
  resyncPeriodMs: 10 * 60_000,
  minRevisionPollMs: 2_000,
  revisionPollBudgetShare: 0.2,
  revisionPollMinHeadroom: 0.5,
  deletionPollMs: 2_000,
};

export interface ReconcilerDeps<Object extends AgentDeploymentView> {
  controlPlane: ControlPlanePort;
  kube: KubePort<Object>;
  observations: ObservationCache;
  poller: FleetPoller;
  /** The wire request the spec asks for, with resolved secret values. */
  desiredState: (object: Object, secrets: Secret[]) => DeploymentCreateRequest;
  deploymentName: (object: Object) => string;
  logger: Logger;
  metrics?: DomainMetrics;
  now?: () => number;
  options?: Partial<ReconcilerOptions>;
}

export class AgentDeploymentReconciler<Object extends AgentDeploymentView> {
  private readonly memory = new KeyMemoryStore();
  private readonly options: ReconcilerOptions;
  private readonly now: () => number;

  constructor(private readonly deps: ReconcilerDeps<Object>) {
    this.options = { ...DEFAULT_RECONCILER_OPTIONS, ...deps.options };
    this.now = deps.now ?? Date.now;
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const found = this.deps.kube.getObject(key);
    if (!found) {
      this.memory.forget(key);
      this.deps.poller.untrackKey(key);
      return {};
    }
    if (found.metadata.deletionTimestamp) return this.finalize(key, found);

    let object = found;
    // On the create path the finalizer rides along with the create-pending write.
    if (!hasFinalizer(object) && (deploymentIdOf(object) || object.spec.suspend || isCreatePending(object))) {
      object = await this.deps.kube.patchMetadata(object, { finalizers: withFinalizer(object) });
    }
    if (object.spec.suspend) {
      await this.publish(
        object,
        { kind: 'Suspended', message: 'Reconciliation is suspended (spec.suspend)' },
        {},
      );
      return {};
    }

    const resolution = resolveSecrets(object.spec.secrets, (name) =>
      this.deps.kube.getSecret(object.metadata.namespace, name),
    );
    if (!resolution.ok) {
      // Not Stalled: applying the Secret heals it, and its watch wakes this object up.
      await this.publish(object, { kind: 'SecretNotFound', message: resolution.message }, {});
      return { requeueAfterMs: 60_000 };
    }
    const desired = this.deps.desiredState(object, resolution.secrets);
    const facts: StatusFacts = { secretVersions: resolution.versions };

    const id = deploymentIdOf(object);
    if (!id) return this.createOrAdopt(key, object, desired, facts);
    return this.sync(key, object, id, desired, facts);
  }

  // ---- create, adopt ------------------------------------------------------------------

  private async createOrAdopt(
    key: string,
    object: Object,
    desired: DeploymentCreateRequest,
    facts: StatusFacts,
  ): Promise<ReconcileResult> {
    const memory = this.memory.get(key);
    const pending = isCreatePending(object);
    // A pending create whose outcome is unknown, or an explicit wish to adopt: the
    // deployment may already exist, and creating again would make a second one.
    if ((pending && !memory.pendingCreateNotSent) || object.spec.adoptExisting) {
      const lookup = await this.deps.controlPlane.findDeploymentsByName(desired.name);
      if (!lookup.ok) return this.failed(object, lookup.error);
      const existing = lookup.value[0];
      if (existing) {
        const reason = pending ? 'CreateRecovered' : 'Adopted';
        object = await this.recordId(object, existing.id);
        this.deps.kube.event(
          object,
          'Normal',
          reason,
          `Manages deployment ${existing.id} (${existing.name})`,
        );
        this.deps.observations.recordPresent(existing, this.now());
        return this.sync(key, object, existing.id, desired, facts);
      }
    }

    if (!pending) {
      object = await this.deps.kube.patchMetadata(object, {
        annotations: { [CREATE_PENDING_ANNOTATION]: new Date(this.now()).toISOString() },
        ...(hasFinalizer(object) ? {} : { finalizers: withFinalizer(object) }),
      });
    }
    const created = await this.deps.controlPlane.createDeployment(desired);
    if (!created.ok) {
      const error = created.error;
      // Only a failure that proves nothing was created lets the next pass skip the lookup.
      memory.pendingCreateNotSent =
        error.kind === 'Throttled' ||
        error.kind === 'Terminal' ||
        (error.kind === 'Transient' && !error.unclear);
      if (error.kind === 'Terminal' || error.kind === 'Conflict')
        return this.createRejected(object, desired, error);
      return this.failed(object, error);
    }
    const deployment = created.value;
    memory.pendingCreateNotSent = false;
    object = await this.recordId(object, deployment.id);
    this.deps.observations.recordPresent(deployment, this.now());
    this.deps.kube.event(
      object,
      'Normal',
      'Created',
      `Created deployment ${deployment.id} (${deployment.name})`,
    );
    this.rolloutStarted(memory, deployment);
    return this.followRevision(key, object, deployment, facts);
  }

  private async createRejected(
    object: Object,
    desired: DeploymentCreateRequest,
    error: ControlPlaneFailure,
  ): Promise<ReconcileResult> {
    // Names are unique in a tenant; a 400 may be that clash. Ask the control plane rather
    // than parse its message.
    const lookup = await this.deps.controlPlane.findDeploymentsByName(desired.name);
    // Without an answer there is no verdict: look again on the next pass.
    if (!lookup.ok) return this.failed(object, lookup.error);
    const cleared = await this.deps.kube.patchMetadata(object, {
      annotations: { [CREATE_PENDING_ANNOTATION]: null },
    });
    if (lookup.value.length > 0) {
      const message = `A deployment named "${desired.name}" already exists in the tenant and is not managed by this object; set spec.adoptExisting: true to manage it, or choose another spec.name`;
      this.deps.kube.event(cleared, 'Warning', 'NameConflict', message);
      await this.publish(cleared, { kind: 'NameConflict', message }, {});
      return {};
    }
    const message = `The control plane rejected the deployment: ${error.message}`;
    this.deps.kube.event(cleared, 'Warning', 'Rejected', message);
    await this.publish(cleared, { kind: 'Rejected', message }, {});
    return {};
  }

  private recordId(object: Object, id: string): Promise<Object> {
    return this.deps.kube.patchMetadata(object, {
      annotations: { [DEPLOYMENT_ID_ANNOTATION]: id, [CREATE_PENDING_ANNOTATION]: null },
      ...(hasFinalizer(object) ? {} : { finalizers: withFinalizer(object) }),
    });
  }

  // ---- observe, patch -----------------------------------------------------------------

  private async sync(
    key: string,
    object: Object,
    id: string,
    desired: DeploymentCreateRequest,
    facts: StatusFacts,
  ): Promise<ReconcileResult> {
    const observed = await this.observe(key, object, id);
    if (observed.kind === 'wait') return { requeueAfterMs: observed.requeueAfterMs };
    if (observed.kind === 'failed') return this.failed(object, observed.error);
    if (observed.kind === 'gone') return this.deploymentGone(key, object, id);
    let deployment = observed.deployment;

    if (deployment.status === 'AWAITING_DELETE' || deployment.status === 'AWAITING_FINAL_DELETE') {
      this.deps.poller.track(id, key, 'inflight');
      await this.publish(
        object,
        {
          kind: 'ControlPlaneUnavailable',
          message: `Deployment ${id} is being deleted outside the operator; it will be created again once gone`,
        },
        { deployment },
      );
      return { requeueAfterMs: this.options.inflightPollMs };
    }

    const diff = diffDeployment(desired, deployment);
    if (diff.immutableChanges.length > 0) {
      const message = `These fields cannot change on an existing deployment: ${diff.immutableChanges.join(', ')}; delete and recreate the AgentDeployment to change them`;
      await this.publish(object, { kind: 'InvalidSpec', message }, { ...facts, deployment });
      return {};
    }
    if (diff.patch) {
      const patched = await this.deps.controlPlane.patchDeployment(id, diff.patch);
      if (!patched.ok) {
        if (patched.error.kind === 'Terminal') {
          const message = `The control plane rejected the update of ${diff.changedFields.join(', ')}: ${patched.error.message}`;
          this.deps.kube.event(object, 'Warning', 'Rejected', message);
          await this.publish(object, { kind: 'Rejected', message }, { ...facts, deployment });
          return {};
        }
        if (patched.error.kind === 'NotFound') return this.deploymentGone(key, object, id);
        return this.failed(object, patched.error);
      }
      deployment = patched.value;
      this.deps.observations.recordPresent(deployment, this.now());
      this.announceUpdate(object, diff.changedFields, diff.createsRevision, deployment, facts);
      if (diff.createsRevision) this.rolloutStarted(this.memory.get(key), deployment);
    }
    return this.followRevision(key, object, deployment, facts);
  }

  private announceUpdate(
    object: Object,
    fields: string[],
    createsRevision: boolean,
    deployment: Deployment,
    facts: StatusFacts,
  ): void {
    const specUnchanged =
      object.status?.observedGeneration === generationOf(object) &&
      equalIgnoringUnset(object.status.secretVersions ?? {}, facts.secretVersions ?? {});
    const what = fields.join(', ');
    if (specUnchanged) {
      this.deps.kube.event(
        object,
        'Warning',
        'DriftCorrected',
        `Changed outside the operator and re-applied: ${what}`,
      );
    } else {
      this.deps.kube.event(object, 'Normal', 'Updated', `Updated ${what}`);
    }
    if (createsRevision) {
      this.deps.kube.event(
        object,
        'Normal',
        'NewRevision',
        `Revision ${deployment.latest_revision_id ?? '?'} started`,
      );
    }
  }

  private async observe(
    key: string,
    object: Object,
    id: string,
  ): Promise<
    | { kind: 'present'; deployment: Deployment }
    | { kind: 'gone' }
    | { kind: 'wait'; requeueAfterMs: number }
    | { kind: 'failed'; error: ControlPlaneFailure }
  > {
    const now = this.now();
    const specChanged = object.status?.observedGeneration !== generationOf(object);
    const inflight = !isReadyAt(object.status?.conditions, generationOf(object));
    // A spec change wants a recent look; otherwise the poller's cadence is fresh enough.
    const maxAge = specChanged
      ? this.options.inflightPollMs / 2
      : inflight
        ? this.options.inflightPollMs * 2
        : this.options.resyncPeriodMs * 1.5;
    const cached = this.deps.observations.fresh(id, maxAge, now);
    if (cached?.kind === 'present') return { kind: 'present', deployment: cached.deployment };
    if (cached === undefined) {
      // Batched: the poller fetches it with up to 99 others and enqueues this key.
      this.deps.poller.want(id, key);
      return { kind: 'wait', requeueAfterMs: this.options.inflightPollMs * 2 };
    }
    // A list did not return it: confirm with a GET before acting on "gone".
    const result = await this.deps.controlPlane.getDeployment(id);
    if (result.ok) {
      this.deps.observations.recordPresent(result.value, this.now());
      return { kind: 'present', deployment: result.value };
    }
    if (result.error.kind === 'NotFound') return { kind: 'gone' };
    return { kind: 'failed', error: result.error };
  }

  private async deploymentGone(key: string, object: Object, id: string): Promise<ReconcileResult> {
    this.deps.poller.untrack(id);
    this.memory.forget(key);
    const message = `Deployment ${id} no longer exists on the control plane; creating it again`;
    this.deps.kube.event(object, 'Warning', 'DeploymentGone', message);
    const cleared = await this.deps.kube.patchMetadata(object, {
      annotations: { [DEPLOYMENT_ID_ANNOTATION]: null },
    });
    await this.publish(cleared, { kind: 'Creating', message }, { clearIds: true });
    return { requeueAfterMs: 0 };
  }

  // ---- follow the revision ------------------------------------------------------------

  private async followRevision(
    key: string,
    object: Object,
    deployment: Deployment,
    facts: StatusFacts,
  ): Promise<ReconcileResult> {
    const memory = this.memory.get(key);
    const latest = deployment.latest_revision_id;
    if (!latest) {
      this.deps.poller.track(deployment.id, key, 'inflight');
      await this.publish(
        object,
        { kind: 'RevisionInProgress', message: 'Waiting for the first revision' },
        { ...facts, deployment },
      );
      return {};
    }
    if (latest === deployment.active_revision_id) {
      this.deps.poller.track(deployment.id, key, 'steady');
      this.announceTerminal(object, memory, latest, 'DEPLOYED');
      await this.publish(
        object,
        { kind: 'Deployed', message: `Revision ${latest} is deployed` },
        { ...facts, deployment, latestRevisionStatus: 'DEPLOYED' },
      );
      return {};
    }

    let status = memory.revisionStatus.get(latest);
    const now = this.now();
    const spare = this.deps.controlPlane.budgetHeadroom() >= this.options.revisionPollMinHeadroom;
    if (now >= memory.nextRevisionPollAt && spare) {
      const revision = await this.deps.controlPlane.getRevision(deployment.id, latest);
      if (revision.ok) {
        status = revision.value.status;
        memory.revisionStatus.set(latest, status);
      } else if (revision.error.kind !== 'Throttled') {
        this.deps.logger.debug({ key, error: revision.error.message }, 'revision poll failed');
      }
      memory.nextRevisionPollAt = now + this.revisionPollIntervalMs();
    }
    const phase = revisionPhase((status ?? 'CREATING') as Parameters<typeof revisionPhase>[0]);
    const revisionFacts: StatusFacts = { ...facts, deployment, latestRevisionStatus: status ?? 'CREATING' };

    if (phase === 'Failed') {
      this.deps.poller.track(deployment.id, key, 'steady');
      this.announceTerminal(object, memory, latest, status ?? 'FAILED');
      const active = deployment.active_revision_id
        ? `; revision ${deployment.active_revision_id} is still active`
        : '';
      await this.publish(
        object,
        { kind: 'RevisionFailed', message: `Revision ${latest} ended ${status ?? ''}${active}` },
        revisionFacts,
      );
      return {};
    }
    if (phase === 'Deployed') {
      // The revision says DEPLOYED before the deployment names it active: look again soon.
      this.deps.poller.want(deployment.id, key);
    } else {
      this.deps.poller.track(deployment.id, key, 'inflight');
    }
    await this.publish(
      object,
      { kind: 'RevisionInProgress', message: `Revision ${latest} is ${status ?? 'CREATING'}` },
      revisionFacts,
    );
    // The poller wakes this key when the deployment changes; this timer is for the
    // revision GET that detects failures, which the deployment alone does not show.
    return { requeueAfterMs: Math.max(memory.nextRevisionPollAt - now, this.options.minRevisionPollMs) };
  }

  /** A revision the control plane just made is CREATING: no GET is needed to know that. */
  private rolloutStarted(memory: KeyMemory, deployment: Deployment): void {
    const revision = deployment.latest_revision_id;
    if (!revision) return;
    memory.rolloutStartedAt.set(revision, this.now());
    memory.revisionStatus.set(revision, 'CREATING');
    memory.nextRevisionPollAt = this.now() + this.revisionPollIntervalMs();
  }

  /**
   * Revision GETs cost one call per object, so their pace is set by how many objects are in
   * flight: all together they may use `revisionPollBudgetShare` of the budget. With a few
   * objects that is every couple of seconds; with a thousand, rarely, and the batched
   * deployment lists (active_revision_id) carry the news of success.
   */
  private revisionPollIntervalMs(): number {
    const callsPerSecond = Math.max(
      this.deps.controlPlane.allowedRatePerSecond() * this.options.revisionPollBudgetShare,
      0.001,
    );
    const perObjectMs = (this.deps.poller.inflightCount / callsPerSecond) * 1000;
    return Math.max(this.options.minRevisionPollMs, perObjectMs);
  }

  private announceTerminal(object: Object, memory: KeyMemory, revisionId: string, status: string): void {
    if (memory.announced.has(revisionId)) return;
    memory.announced.add(revisionId);
    const started = memory.rolloutStartedAt.get(revisionId);
    memory.rolloutStartedAt.delete(revisionId);
    this.deps.metrics?.revisionFinished(
      status,
      started === undefined ? undefined : (this.now() - started) / 1000,
    );
    if (status === 'DEPLOYED') {
      this.deps.kube.event(object, 'Normal', 'Deployed', `Revision ${revisionId} is deployed`);
    } else {
      this.deps.kube.event(object, 'Warning', 'RevisionFailed', `Revision ${revisionId} ended ${status}`);
    }
  }

  // ---- delete -------------------------------------------------------------------------

  private async finalize(key: string, object: Object): Promise<ReconcileResult> {
    if (!hasFinalizer(object)) return {};
    const policy = object.spec.deletionPolicy ?? 'Delete';
    let id = deploymentIdOf(object);
    if (policy === 'Orphan') {
      if (id)
        this.deps.kube.event(
          object,
          'Normal',
          'Orphaned',
          `Left deployment ${id} on the control plane (deletionPolicy Orphan)`,
        );
      return this.releaseFinalizer(key, object, id);
    }
    if (!id && isCreatePending(object)) {
      // A create may have landed without its id being recorded: find it by name.
      const lookup = await this.deps.controlPlane.findDeploymentsByName(this.deps.deploymentName(object));
      if (!lookup.ok) return this.failed(object, lookup.error);
      id = lookup.value[0]?.id;
    }
    if (!id) return this.releaseFinalizer(key, object, undefined);

    const observed = await this.deps.controlPlane.getDeployment(id);
    if (!observed.ok) {
      if (observed.error.kind === 'NotFound') {
        this.deps.kube.event(object, 'Normal', 'Deleted', `Deployment ${id} is deleted`);
        return this.releaseFinalizer(key, object, id);
      }
      return this.failed(object, observed.error);
    }
    const status = observed.value.status;
    if (status !== 'AWAITING_DELETE' && status !== 'AWAITING_FINAL_DELETE') {
      const deleted = await this.deps.controlPlane.deleteDeployment(id);
      if (!deleted.ok && deleted.error.kind !== 'NotFound') return this.failed(object, deleted.error);
      this.deps.kube.event(object, 'Normal', 'Deleting', `Deleting deployment ${id}`);
    }
    await this.publish(
      object,
      { kind: 'Deleting', message: `Waiting for deployment ${id} to be deleted` },
      { deployment: observed.value },
    );
    return { requeueAfterMs: this.options.deletionPollMs };
  }

  private async releaseFinalizer(
    key: string,
    object: Object,
    id: string | undefined,
  ): Promise<ReconcileResult> {
    if (id) this.deps.poller.untrack(id);
    this.memory.forget(key);
    await this.deps.kube.patchMetadata(object, {
      finalizers: (object.metadata.finalizers ?? []).filter((name) => name !== FINALIZER),
    });
    return {};
  }

  // ---- status and failures ------------------------------------------------------------

  private async failed(object: Object, error: ControlPlaneFailure): Promise<ReconcileResult> {
    const throttled = error.kind === 'Throttled';
    // A settled object stays Ready through a failed resync: the agent still runs.
    if (!isReadyAt(object.status?.conditions, generationOf(object))) {
      await this.publish(
        object,
        throttled
          ? { kind: 'Throttled', message: `Waiting for the control plane's rate budget: ${error.message}` }
          : { kind: 'ControlPlaneUnavailable', message: error.message },
        {},
      );
    }
    if (throttled) return { requeueAfterMs: Math.max(error.retryAfterMs ?? 1_000, 50) };
    throw new RetryableReconcileError(error.message);
  }

  private async publish(object: Object, state: SyncState, facts: StatusFacts): Promise<void> {
    const now = new Date(this.now());
    const status = nextStatus(object, state, facts, now);
    if (!statusChanged(object.status, status)) return;
    status.lastSyncTime = now.toISOString();
    if (isStalled(state)) this.deps.logger.info({ reason: state.kind, message: state.message }, 'stalled');
    await this.deps.kube.patchStatus(object, status);
  }
}

function withFinalizer(object: AgentDeploymentView): string[] {
  return [...(object.metadata.finalizers ?? []), FINALIZER];
}
