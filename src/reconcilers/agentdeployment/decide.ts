// The decision core: given what is known (Observed), the one thing to do next. Pure: no
// I/O, no clock, no randomness; the same inputs always give the same action, which is what
// lets the table in test/reconciler/decide.test.ts cover every row of the behaviour.
//
// The ladder, top to bottom (the first rung that applies wins):
//   deleting            → release, or delete only the deployment this object owns
//   spec not understood → Stalled InvalidSpec, no call
//   suspended           → Suspended, no control-plane call, no write but status
//   connection refused  → Stalled ConnectionNotFound/NotReady/NotAllowed, no call
//   listener or integration name unknown → Stalled InvalidSpec naming those that exist, re-checked slowly
//   name claimed by an older object of the fleet → Stalled NameConflict, no call
//   Secret missing      → SecretNotFound, wait for it
//   owns no deployment  → recover a recorded create, adopt, or create (after the finalizer)
//   owns a deployment   → observe it; gone → forget; differs → patch; else follow the revision
import {
  isFailedRevisionStatus,
  type Deployment,
  type RevisionStatus,
  type SourceRevisionConfigRequest,
} from '../../controlplane/models/index.js';
import type { Action, EventSpec, PublishOptions } from './action.js';
import { isReadyAt } from './conditions.js';
import type { ReconcilerTimings } from './defaults.js';
import { equalIgnoringUnset } from './deep-equal.js';
import { diffDeployment } from './diff.js';
import type { Observed, SpecReading } from './observed.js';
import { REDEPLOY_AT_ANNOTATION } from './object.js';
import { revisionPhase } from './revision-phase.js';
import { specPathOf } from './spec-paths.js';
import type { StatusFacts } from './status.js';
import type { SyncState } from './sync-state.js';

type ValidSpec = Extract<SpecReading, { kind: 'valid' }>;

export function decide(o: Observed, t: ReconcilerTimings): Action {
  if (o.object.deleting) return decideDeletion(o, t);
  if (o.spec.kind === 'invalid') return publish({ kind: 'InvalidSpec', message: o.spec.message });
  if (o.object.suspend) {
    return publish({
      kind: 'Suspended',
      message: 'Reconciliation is suspended (spec.suspend): no control-plane writes',
    });
  }
  if (o.connectionRefused !== undefined) return connectionRefusal(o.connectionRefused, t);
  if (o.spec.kind === 'unknownName') {
    // The catalog is re-read at most once a minute on a miss: a listener added later is found.
    return publish(
      { kind: 'InvalidSpec', message: o.spec.message },
      {},
      { requeueAfterMs: t.stalledRecheckMs },
    );
  }
  if (o.spec.kind === 'namesFailed') return { kind: 'fail', error: o.spec.error };
  const owned = o.ownership.deploymentId;
  if (owned === undefined && o.rival !== undefined) {
    return publish({
      kind: 'NameConflict',
      message: `AgentDeployment ${o.rival} already claims the control-plane name "${o.object.deploymentName}"; choose another spec.name`,
    });
  }
  if (o.spec.kind === 'secretMissing') {
    // Not Stalled: applying the Secret heals it, and its watch wakes this object up.
    return publish(
      { kind: 'SecretNotFound', message: o.spec.message },
      {},
      { requeueAfterMs: t.secretWaitMs },
    );
  }
  const spec = o.spec;
  const key = specKey(o);
  return owned === undefined ? decideCreation(o, spec, key, t) : decideOwned(o, owned, spec, key, t);
}

/**
 * Its connection's watch wakes the object when the connection's Ready flips; the slow
 * re-check covers what no watch brings (a Namespace's labels for a selector). No call is made.
 */
function connectionRefusal(
  refused: NonNullable<Observed['connectionRefused']>,
  t: ReconcilerTimings,
): Action {
  return publish(
    { kind: refused.reason, message: `spec.connectionRef: ${refused.message}` },
    {},
    { requeueAfterMs: t.secretWaitMs },
  );
}

/** What a refused request was built from: a change of any part earns a new attempt. */
export function specKey(o: Pick<Observed, 'object' | 'spec'>): string {
  const versions = o.spec.kind === 'valid' ? o.spec.secretVersions : {};
  const sorted = Object.keys(versions)
    .sort()
    .map((name) => `${name}=${versions[name] ?? ''}`);
  return `${o.object.generation}|${sorted.join(',')}|${o.object.redeployAt ?? ''}`;
}

/** Delay before a refused request is tried again although nothing changed. */
export function recheckDelayMs(recheckFailures: number, t: ReconcilerTimings): number {
  return Math.min(t.stalledRecheckMaxMs, t.stalledRecheckMs * 2 ** Math.min(recheckFailures, 20));
}

// ---- deletion -----------------------------------------------------------------------

function decideDeletion(o: Observed, t: ReconcilerTimings): Action {
  if (!o.object.hasFinalizer) return { kind: 'nothing' };
  const owned = o.ownership.deploymentId;
  if (o.object.suspend || o.object.deletionPolicy === 'Orphan') {
    const why = o.object.suspend ? 'the object is suspended (spec.suspend)' : 'deletionPolicy is Orphan';
    return {
      kind: 'release',
      ...(owned
        ? { event: normal('Orphaned', `Left deployment ${owned} on the control plane: ${why}`) }
        : {}),
    };
  }
  const intent = o.ownership.createRequestedAt;
  if (owned === undefined && intent === undefined) return { kind: 'release' };
  // Deleting what the object owns takes calls on its connection: wait until it is usable.
  if (o.connectionRefused !== undefined) return connectionRefusal(o.connectionRefused, t);
  if (owned === undefined) {
    // A create may have landed without its id being recorded: only a deployment created
    // after the intent and claimed by no other object can be that one.
    if (intent === undefined) return { kind: 'release' };
    if (o.byName.kind === 'unobserved') return { kind: 'observeName', name: o.object.deploymentName };
    if (o.byName.kind === 'failed') return { kind: 'fail', error: o.byName.error };
    const recovered = recoverable(o, o.byName.deployments, intent, t);
    return recovered
      ? { kind: 'adopt', deployment: recovered, reason: 'CreateRecovered' }
      : { kind: 'release' };
  }
  const reading = o.deployment;
  if (reading.kind === 'unobserved' || reading.kind === 'pending') {
    return { kind: 'observeDeployment', id: owned, maxAgeMs: 0 };
  }
  if (reading.kind === 'failed') return { kind: 'fail', error: reading.error };
  if (reading.kind === 'gone')
    return { kind: 'release', event: normal('Deleted', `Deployment ${owned} is deleted`) };
  if (isBeingDeleted(reading.deployment)) {
    return publish(
      { kind: 'Deleting', message: `Waiting for deployment ${owned} to be deleted` },
      { deployment: reading.deployment },
      { requeueAfterMs: t.deletionPollMs },
    );
  }
  return { kind: 'delete', id: owned };
}

// ---- no deployment yet ----------------------------------------------------------------

function decideCreation(o: Observed, spec: ValidSpec, key: string, t: ReconcilerTimings): Action {
  const facts: StatusFacts = { secretVersions: spec.secretVersions };
  const waiting = refusedAndWaiting(o, key, t, facts);
  if (waiting) return waiting;

  const intent = o.ownership.createRequestedAt;
  const hint = o.object.hintedDeploymentId;
  if (hint !== undefined && intent === undefined && o.claims[hint] === undefined) {
    // A hint is verified before use: it must exist, carry this name, and be nobody's.
    const reading = o.deployment;
    // Existence and name are all it needs: any batched observation since the last resync will do.
    if (reading.kind === 'unobserved')
      return { kind: 'observeDeployment', id: hint, maxAgeMs: t.resyncPeriodMs * 1.5 };
    if (reading.kind === 'pending') return wait(reading.retryAfterMs);
    if (reading.kind === 'failed') return { kind: 'fail', error: reading.error };
    if (reading.kind === 'present' && reading.deployment.name === spec.desired.name) {
      return withFinalizer(o, { kind: 'adopt', deployment: reading.deployment, reason: 'Adopted' });
    }
  }

  if (intent !== undefined || o.object.adoptExisting) {
    if (o.byName.kind === 'unobserved') return { kind: 'observeName', name: spec.desired.name };
    if (o.byName.kind === 'failed') return { kind: 'fail', error: o.byName.error };
    const found = o.byName.deployments;
    const recovered = intent === undefined ? undefined : recoverable(o, found, intent, t);
    if (recovered)
      return withFinalizer(o, { kind: 'adopt', deployment: recovered, reason: 'CreateRecovered' });
    const free = found.find((deployment) => o.claims[deployment.id] === undefined);
    if (o.object.adoptExisting && free)
      return withFinalizer(o, { kind: 'adopt', deployment: free, reason: 'Adopted' });
    const taken = found[0];
    if (taken) {
      return publish(
        { kind: 'NameConflict', message: nameTakenMessage(o, taken) },
        { ...facts, ownership: { uid: o.object.uid } },
        { refused: { specKey: key, reason: 'NameConflict' } },
      );
    }
  }
  return withFinalizer(o, { kind: 'create', request: spec.desired, facts, specKey: key });
}

/** The finalizer comes first: nothing is created or adopted that deletion could not clean up. */
function withFinalizer(o: Observed, action: Action): Action {
  return o.object.hasFinalizer ? action : { kind: 'addFinalizer' };
}

function recoverable(
  o: Observed,
  found: readonly Deployment[],
  intentAt: number,
  t: ReconcilerTimings,
): Deployment | undefined {
  return found.find(
    (deployment) =>
      o.claims[deployment.id] === undefined &&
      Date.parse(deployment.created_at) >= intentAt - t.createIntentSkewMs,
  );
}

function nameTakenMessage(o: Observed, taken: Deployment): string {
  const owner = o.claims[taken.id];
  if (owner !== undefined) {
    return `Deployment ${taken.id} named "${taken.name}" belongs to AgentDeployment ${owner}; choose another spec.name`;
  }
  return `A deployment named "${taken.name}" already exists in the tenant and is not managed by this object; set spec.adoptExisting: true to manage it, or choose another spec.name`;
}

/** A refused create or update of this very spec: stay Stalled until the re-check is due. */
function refusedAndWaiting(
  o: Observed,
  key: string,
  t: ReconcilerTimings,
  facts: StatusFacts,
): Action | undefined {
  const refused = o.refused;
  if (!refused || refused.specKey !== key) return undefined;
  const due = refused.at + recheckDelayMs(refused.recheckFailures, t);
  if (o.now >= due) return undefined;
  return publish({ kind: refused.reason, message: refused.message }, facts, { requeueAfterMs: due - o.now });
}

// ---- an owned deployment ----------------------------------------------------------------

function decideOwned(o: Observed, id: string, spec: ValidSpec, key: string, t: ReconcilerTimings): Action {
  const reading = o.deployment;
  const reconcileRequested =
    o.object.reconcileRequestedAt !== undefined &&
    o.object.reconcileRequestedAt !== o.status.lastHandledReconcileAt;
  if (reading.kind === 'unobserved') {
    // reconcile-requested-at: look now rather than trust the poller's last round.
    return { kind: 'observeDeployment', id, maxAgeMs: reconcileRequested ? 0 : observationMaxAge(o, t) };
  }
  if (reading.kind === 'pending') return wait(reading.retryAfterMs);
  if (reading.kind === 'failed') return { kind: 'fail', error: reading.error };
  if (reading.kind === 'gone') return { kind: 'forget', id };

  const deployment = reading.deployment;
  const facts: StatusFacts = {
    deployment,
    secretVersions: spec.secretVersions,
    ...(reconcileRequested ? { handledReconcileAt: o.object.reconcileRequestedAt } : {}),
  };
  if (isBeingDeleted(deployment)) {
    return publish(
      {
        kind: 'ControlPlaneUnavailable',
        message: `Deployment ${id} is being deleted outside the operator; it will be created again once gone`,
      },
      facts,
      { requeueAfterMs: t.inflightPollMs, track: { id, mode: 'inflight' } },
    );
  }
  const diff = diffDeployment(spec.desired, deployment);
  if (diff.immutableChanges.length > 0) {
    return publish(
      {
        kind: 'InvalidSpec',
        message: `These fields cannot change on an existing deployment: ${diff.immutableChanges.map(specPathOf).join(', ')}; delete and recreate the AgentDeployment to change them`,
      },
      facts,
    );
  }
  // Where the API cannot clear a field the spec dropped, say so once, when the spec changes.
  const warnings =
    o.status.observedGeneration !== o.object.generation && diff.uncleared.length > 0
      ? [unclearedWarning(diff.uncleared, deployment)]
      : [];
  const redeploy =
    o.object.redeployAt !== undefined && o.object.redeployAt !== o.status.lastHandledRedeployAt
      ? o.object.redeployAt
      : undefined;
  if (diff.patch || redeploy !== undefined) {
    const waiting = refusedAndWaiting(o, key, t, facts);
    if (waiting) return waiting;
    const patch = { ...(diff.patch ?? {}) };
    const changedFields = diff.changedFields.map(specPathOf);
    if (redeploy !== undefined && !diff.createsRevision) {
      // A non-null revision field makes a new revision even when unchanged (the API's rule).
      patch.source_revision_config = revisionFieldsOf(spec);
      changedFields.push(`metadata.annotations["${REDEPLOY_AT_ANNOTATION}"]`);
    }
    const specUnchanged =
      o.status.observedGeneration === o.object.generation &&
      equalIgnoringUnset(o.status.secretVersions ?? {}, spec.secretVersions);
    return {
      kind: 'patch',
      deployment,
      patch,
      changedFields,
      createsRevision: diff.createsRevision || redeploy !== undefined,
      drift: specUnchanged && redeploy === undefined,
      facts: { ...facts, ...(redeploy !== undefined ? { handledRedeployAt: redeploy } : {}) },
      specKey: key,
      warnings,
    };
  }
  const next = follow(o, deployment, facts, t);
  return next.kind === 'publish' && warnings.length > 0 ? { ...next, warnings } : next;
}

function unclearedWarning(fields: readonly string[], deployment: Deployment): string {
  const paths = fields.map(specPathOf).join(', ');
  return `${paths} no longer set, but the control plane cannot clear it (PATCH reads an empty or absent value as "leave as is"): deployment ${deployment.id} keeps ${deployment.secrets.length} secret(s); recreate the AgentDeployment to remove them`;
}

function revisionFieldsOf(spec: ValidSpec): SourceRevisionConfigRequest {
  const config = spec.desired.source_revision_config;
  const fields: SourceRevisionConfigRequest = {};
  for (const field of ['repo_ref', 'graph_config_path', 'image_uri'] as const) {
    const value = config[field];
    if (typeof value === 'string') fields[field] = value;
  }
  return fields;
}

/** How old the observation may be: fresh after a spec change, the poller's pace otherwise. */
function observationMaxAge(o: Observed, t: ReconcilerTimings): number {
  if (o.status.observedGeneration !== o.object.generation) return t.inflightPollMs / 2;
  if (!isReadyAt(o.status.conditions, o.object.generation)) return t.inflightPollMs * 2;
  return t.resyncPeriodMs * 1.5;
}

function follow(o: Observed, deployment: Deployment, facts: StatusFacts, t: ReconcilerTimings): Action {
  const id = deployment.id;
  const latest = deployment.latest_revision_id;
  if (!latest) {
    return publish({ kind: 'RevisionInProgress', message: 'Waiting for the first revision' }, facts, {
      track: { id, mode: 'inflight' },
    });
  }
  if (latest === deployment.active_revision_id) {
    return publish(
      { kind: 'Deployed', message: `Revision ${latest} is deployed` },
      { ...facts, latestRevisionStatus: 'DEPLOYED' },
      { track: { id, mode: 'steady' } },
    );
  }
  const known =
    o.knownRevisions[latest] ??
    (o.status.latestRevisionId === latest ? o.status.latestRevisionStatus : undefined);
  const settled = known !== undefined && isTerminalRevisionStatus(known);
  if (!settled && o.revisionPoll.allowed)
    return { kind: 'observeRevision', deploymentId: id, revisionId: latest };
  const status = known ?? 'CREATING';
  const revisionFacts: StatusFacts = { ...facts, latestRevisionStatus: status };
  const phase = revisionPhase(status as RevisionStatus);
  if (phase === 'Failed') {
    const active = deployment.active_revision_id
      ? `; revision ${deployment.active_revision_id} is still active`
      : '';
    return publish(
      { kind: 'RevisionFailed', message: `Revision ${latest} ended ${status}${active}` },
      revisionFacts,
      {
        track: { id, mode: 'steady' },
      },
    );
  }
  const message = `Revision ${latest} is ${status}`;
  if (phase === 'Deployed') {
    // The revision says DEPLOYED before the deployment names it active: look again soon.
    return publish({ kind: 'RevisionInProgress', message }, revisionFacts, { track: { id, mode: 'want' } });
  }
  // The poller wakes this key when the deployment changes; the timer is for the revision
  // GET that detects failures, which the deployment alone does not show.
  return publish({ kind: 'RevisionInProgress', message }, revisionFacts, {
    track: { id, mode: 'inflight' },
    requeueAfterMs: Math.max(o.revisionPoll.dueInMs, t.minRevisionPollMs),
  });
}

export function isTerminalRevisionStatus(status: string): boolean {
  return status === 'DEPLOYED' || isFailedRevisionStatus(status as RevisionStatus);
}

function isBeingDeleted(deployment: Deployment): boolean {
  return deployment.status === 'AWAITING_DELETE' || deployment.status === 'AWAITING_FINAL_DELETE';
}

// ---- action builders ----------------------------------------------------------------------

function publish(state: SyncState, facts: StatusFacts = {}, options: PublishOptions = {}): Action {
  return { kind: 'publish', state, facts, ...options };
}

function wait(requeueAfterMs: number): Action {
  return { kind: 'wait', requeueAfterMs };
}

function normal(reason: string, message: string): EventSpec {
  return { type: 'Normal', reason, message };
}
