// The decision core: given what is known (Observed), the one thing to do next. Pure: no
// I/O, no clock, no randomness; the same inputs always give the same action, which is what
// lets the table in test/reconciler/decide.test.ts cover every row of the behaviour.
//
// The ladder is data: LADDER below, an ordered list of named rungs; `decide` walks it and the
// first rung that decides wins. The README's copy of the ladder is generated from LADDER
// (scripts/generate-ladder-doc.ts; scripts/check-generated.ts fails when it drifts), so the
// order is written down in one place only: here.
//
// status.ownership is trusted only as far as the control plane confirms it: the deployment
// must carry this object's name (spec.name is immutable) and no older object may record the
// same id. Whoever can write status (a role with agentdeployments/status) thus cannot aim the
// operator's PATCH or DELETE at another team's deployment.
import {
  isFailedRevisionStatus,
  type Deployment,
  type RevisionStatus,
  type SourceRevisionConfigRequest,
} from '../../controlplane/models/index.js';
import type { SmokeTestStatus } from '../../api/agentdeployment/index.js';
import type { Action, EventSpec, PublishOptions, Tracking } from './action.js';
import { observedAfterAdoption, withAdoptionRecord } from './adoption.js';
import { isReadyAt } from './conditions.js';
import type { ReconcilerTimings } from './defaults.js';
import { equalIgnoringUnset } from '../../runtime/equal-ignoring-unset.js';
import { diffDeploymentRemembered } from './diff.js';
import { chooseAgentCredential } from '../../egress/agent-credential.js';
import { smokeTestRetryDelayMs } from './error-policy.js';
import { VERDICT_LENGTH, clip } from './smoke-test.js';
import { smokeTestHeaderRefs } from './smoke-test-headers.js';
import { decideExport } from './export.js';
import type { Observed, RefusedCreate, SpecReading } from './observed.js';
import {
  DEPLOYMENT_ID_ANNOTATION,
  REDEPLOY_AT_ANNOTATION,
  recordedSecretVersions,
  secretVersionsKey,
} from './object.js';
import { revisionPhase } from './revision-phase.js';
import { settledTracking } from './push-following.js';
import {
  asRolledBack,
  manualRollback,
  resumeRollback,
  rollbackInForce,
  rollbackOnFailure,
  withEvent,
} from './rollback.js';
import { specPathOf } from './spec-paths.js';
import type { StatusFacts } from './status.js';
import type { SyncState } from './sync-state.js';

type ValidSpec = Extract<SpecReading, { kind: 'valid' }>;

/** One rung of the ladder: it decides (an Action), or lets the next rung look (undefined). */
export interface Rung {
  /** A stable name: the docs list it, and tests say which rung decided a row. */
  name: string;
  /** One line for the docs: when the rung applies and what it does. */
  doc: string;
  decide: (o: Observed, t: ReconcilerTimings) => Action | undefined;
}

/** The decision ladder, top to bottom: the first rung that returns an action wins. */
export const LADDER: readonly Rung[] = [
  {
    name: 'deleting',
    doc: 'the object is being deleted: release it, or delete only the deployment it owns (a create that may have landed is recovered first; nothing is ever deleted by name)',
    decide: (o, t) => (o.object.deleting ? decideDeletion(o, t) : undefined),
  },
  {
    name: 'specNotUnderstood',
    doc: '`InvalidSpec` (Stalled): the spec slipped past validation; no call',
    decide: (o) =>
      o.spec.kind === 'invalid' ? publish({ kind: 'InvalidSpec', message: o.spec.message }) : undefined,
  },
  {
    name: 'suspended',
    doc: '`Suspended`: no control-plane call, no write but status',
    decide: (o) =>
      o.object.suspend
        ? publish({
            kind: 'Suspended',
            message: 'Reconciliation is suspended (spec.suspend): no control-plane writes',
          })
        : undefined,
  },
  {
    name: 'connectionRefused',
    doc: '`ConnectionNotFound`, `ConnectionNotReady` or `ConnectionNotAllowed` (Stalled): `spec.connectionRef` cannot be used; no call, re-checked slowly',
    decide: (o, t) =>
      o.connectionRefused !== undefined ? connectionRefusal(o.connectionRefused, t) : undefined,
  },
  {
    name: 'observeOnly',
    doc: '`Observed` or `DeploymentNotFound` (`spec.managementPolicy: ObserveOnly`): status mirrors the deployment named by the deployment-id annotation or by name, where adoption is permitted; reads only: no write, no finalizer',
    decide: (o, t) => (o.object.observeOnly ? decideObserveOnly(o, t) : undefined),
  },
  {
    name: 'unknownName',
    doc: '`InvalidSpec` naming those that exist: a `listenerRef` or `integrationRef` names nothing on the connection; re-checked slowly',
    decide: (o, t) =>
      // The catalog is re-read at most once a minute on a miss: a listener added later is found.
      o.spec.kind === 'unknownName'
        ? publish(
            { kind: 'InvalidSpec', message: o.spec.message },
            {},
            { requeueAfterMs: t.stalledRecheckMs },
          )
        : undefined,
  },
  {
    name: 'namesUnreadable',
    doc: 'reading the listener or integration names failed: the error policy decides',
    decide: (o) => (o.spec.kind === 'namesFailed' ? { kind: 'fail', error: o.spec.error } : undefined),
  },
  {
    name: 'ownershipDisputed',
    doc: '`OwnershipConflict` (Stalled): an older object records the same deployment id; no call',
    decide: (o) => {
      const owned = o.ownership.deploymentId;
      if (owned === undefined || o.ownership.disputedBy === undefined) return undefined;
      return publish({ kind: 'OwnershipConflict', message: disputedMessage(owned, o.ownership.disputedBy) });
    },
  },
  {
    name: 'nameClaimed',
    doc: '`NameConflict` (Stalled): an older object of the fleet claims the control-plane name; no call',
    decide: (o) =>
      o.ownership.deploymentId === undefined && o.rival !== undefined
        ? publish({
            kind: 'NameConflict',
            message: `AgentDeployment ${o.rival} already claims the control-plane name "${o.object.deploymentName}"; choose another spec.name`,
          })
        : undefined,
  },
  {
    name: 'secretMissing',
    doc: '`SecretNotFound`: a referenced Secret or ConfigMap (or its key) is missing; wait for it (its watch wakes the object)',
    decide: (o, t) =>
      // Not Stalled: applying the Secret heals it, and its watch wakes this object up.
      o.spec.kind === 'secretMissing'
        ? publish({ kind: 'SecretNotFound', message: o.spec.message }, {}, { requeueAfterMs: t.secretWaitMs })
        : undefined,
  },
  {
    name: 'createRefused',
    doc: "the control plane just refused a create: look the name up; `NameConflict` if the name is taken, else `Rejected` with the server's reason (Stalled until the spec changes or the slow re-check)",
    decide: (o) =>
      o.refusedCreate !== undefined && o.ownership.deploymentId === undefined
        ? classifyRefusedCreate(o, o.refusedCreate)
        : undefined,
  },
  {
    name: 'noDeployment',
    doc: "owns no deployment: a refused request waits for its re-check; else recover a recorded create, adopt (a verified hint, or `adoptExisting` where permitted; when all the owned object would do next is publish status, such as `Ready`, that goes in the ownership record's write), or create after adding the finalizer",
    decide: (o, t) =>
      o.spec.kind === 'valid' && o.ownership.deploymentId === undefined
        ? decideCreation(o, o.spec, specKey(o), t)
        : undefined,
  },
  {
    name: 'export',
    doc: '`spec.export`: once the owned deployment is observed, write its ConfigMap when the facts changed (never one the object did not create: `Exported` False, `ExportConflict`); delete an exported ConfigMap the spec no longer names',
    decide: (o) => {
      const step = o.spec.kind === 'valid' ? decideExport(o) : undefined;
      return step === undefined ? undefined : { kind: 'export', ...step };
    },
  },
  {
    name: 'ownsDeployment',
    doc: 'owns a deployment: observe it; another name → `OwnershipConflict`; gone → forget it; a new `rollback-to` annotation → roll back to that revision of the history; a rolled-back spec → follow what runs as `RolledBack`, never re-apply it; differs (or a redeploy is asked) → patch; else follow the revision; a deployed revision with `spec.smokeTest` is called once, then `Ready` or `SmokeTestFailed`; a failure with `spec.rollback.onFailure` → roll back to the last revision that worked',
    decide: (o, t) => {
      const owned = o.ownership.deploymentId;
      return o.spec.kind === 'valid' && owned !== undefined
        ? decideOwned(o, owned, o.spec, specKey(o), t)
        : undefined;
    },
  },
];

export function decide(o: Observed, t: ReconcilerTimings): Action {
  return decideWithRung(o, t).action;
}

/** The action and the name of the rung that chose it (the table test says which rung decides each row). */
export function decideWithRung(o: Observed, t: ReconcilerTimings): { rung: string; action: Action } {
  for (const rung of LADDER) {
    const action = rung.decide(o, t);
    if (action !== undefined)
      return { rung: rung.name, action: action.kind === 'adopt' ? lookPastAdoption(o, action, t) : action };
  }
  // The rungs cover every spec reading with and without an owned deployment: reaching here
  // is a defect of the ladder (a new SpecReading kind without its rung), not of the object.
  throw new Error(`decide: no rung of the ladder applies (spec reading "${o.spec.kind}")`);
}

/**
 * An adoption carries the owned object's next step when that step only publishes status
 * (adoption.ts): one write instead of two. Any other next step (a read, a PATCH, a smoke
 * test, a delete) waits for the pass after the adoption, as before.
 */
function lookPastAdoption(
  o: Observed,
  adopt: Extract<Action, { kind: 'adopt' }>,
  t: ReconcilerTimings,
): Action {
  const next = decide(observedAfterAdoption(o, adopt.deployment), t);
  return next.kind === 'publish'
    ? { ...adopt, then: withAdoptionRecord(next, o.object.uid, adopt.deployment) }
    : adopt;
}

/**
 * A create the control plane refused as Terminal in the last pass. Names are unique in a
 * tenant, so a 400 may be that clash: the control plane is asked rather than its message
 * parsed; without an answer, the server's words are the verdict.
 */
function classifyRefusedCreate(o: Observed, refusal: RefusedCreate): Action {
  if (o.byName.kind === 'unobserved') return { kind: 'observeName', name: refusal.name };
  const taken = o.byName.kind === 'found' && o.byName.deployments.length > 0;
  const state: Extract<SyncState, { kind: 'NameConflict' | 'Rejected' }> = taken
    ? {
        kind: 'NameConflict',
        message: `A deployment named "${refusal.name}" already exists in the tenant and is not managed by this object; set spec.adoptExisting: true to manage it, or choose another spec.name`,
      }
    : { kind: 'Rejected', message: `The control plane rejected the deployment: ${refusal.message}` };
  return publish(
    state,
    // No create intent is left behind: nothing was created.
    { ...refusal.facts, ownership: { uid: o.object.uid } },
    { refused: { specKey: refusal.specKey, reason: state.kind } },
  );
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
  return `${o.object.generation}|${secretVersionsKey(versions)}|${o.object.redeployAt ?? ''}`;
}

/** Delay before a refused request is tried again although nothing changed. */
export function recheckDelayMs(recheckFailures: number, t: ReconcilerTimings): number {
  return Math.min(t.stalledRecheckMaxMs, t.stalledRecheckMs * 2 ** Math.min(recheckFailures, 20));
}

// ---- deletion -----------------------------------------------------------------------

function decideDeletion(o: Observed, t: ReconcilerTimings): Action {
  if (!o.object.hasFinalizer) return { kind: 'nothing' };
  const owned = o.ownership.deploymentId;
  if (o.object.suspend || o.object.deletionPolicy === 'Orphan' || o.object.observeOnly) {
    const why = o.object.suspend
      ? 'the object is suspended (spec.suspend)'
      : o.object.observeOnly
        ? 'spec.managementPolicy is ObserveOnly'
        : 'deletionPolicy is Orphan';
    return {
      kind: 'release',
      ...(owned
        ? {
            event: normal('Orphaned', `Left deployment ${owned} on the control plane: ${why}`),
            orphaned: owned,
          }
        : {}),
    };
  }
  if (owned !== undefined && o.ownership.disputedBy !== undefined) {
    return {
      kind: 'release',
      event: warning(
        'OwnershipConflict',
        `Left deployment ${owned}: ${disputedMessage(owned, o.ownership.disputedBy)}`,
      ),
    };
  }
  // A create refused in the last pass created nothing, although its intent is still recorded
  // until the verdict is published: nothing of that name may be recovered (and deleted) for it.
  const intent = o.refusedCreate === undefined ? o.ownership.createRequestedAt : undefined;
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
  if (reading.deployment.name !== o.object.deploymentName) {
    return {
      kind: 'release',
      event: warning(
        'OwnershipConflict',
        `Left deployment ${owned}: ${foreignNameMessage(o, reading.deployment)}`,
      ),
    };
  }
  if (isBeingDeleted(reading.deployment)) {
    return publish(
      { kind: 'Deleting', message: `Waiting for deployment ${owned} to be deleted` },
      { deployment: reading.deployment },
      { requeueAfterMs: t.deletionPollMs },
    );
  }
  // The flag goes with the owned deployment's id: the control plane deletes that deployment's
  // own project, never one found by a name a tenant wrote.
  return o.object.deleteTracingProject === true
    ? { kind: 'delete', id: owned, deleteTracingProject: true }
    : { kind: 'delete', id: owned };
}

// ---- observe only -------------------------------------------------------------------------

/**
 * spec.managementPolicy ObserveOnly: find the deployment (by the id the annotation gives, else
 * by name) and mirror it into status. Only reads: the actions returned are observations and
 * status publications, never a create, patch, delete, finalizer or ownership record. Reading
 * a deployment this object does not own is a way into another team's work, so it follows the
 * adoption rule of the namespace (`--adoption-namespaces`).
 */
function decideObserveOnly(o: Observed, t: ReconcilerTimings): Action {
  const id = o.object.hintedDeploymentId;
  let found: Deployment | undefined;
  if (id !== undefined) {
    const reading = o.deployment;
    if (reading.kind === 'unobserved') return { kind: 'observeDeployment', id, maxAgeMs: t.resyncPeriodMs };
    if (reading.kind === 'pending') return wait(reading.retryAfterMs);
    if (reading.kind === 'failed') return { kind: 'fail', error: reading.error };
    if (reading.kind === 'present') found = reading.deployment;
  } else {
    if (o.byName.kind === 'unobserved') return { kind: 'observeName', name: o.object.deploymentName };
    if (o.byName.kind === 'failed') return { kind: 'fail', error: o.byName.error };
    found = o.byName.deployments[0];
  }
  const target =
    id !== undefined
      ? `${id} (from the ${DEPLOYMENT_ID_ANNOTATION} annotation)`
      : `named "${o.object.deploymentName}"`;
  if (found === undefined) {
    return publish(
      {
        kind: 'DeploymentNotFound',
        message: `spec.managementPolicy is ObserveOnly and the control plane has no deployment ${target}; looking again later`,
      },
      { clearIds: true },
      { requeueAfterMs: t.stalledRecheckMs },
    );
  }
  const forbidden = adoptionForbiddenFor(o, found.id);
  if (forbidden !== undefined) {
    return publish(
      {
        kind: 'AdoptionNotAllowed',
        message: `spec.managementPolicy ObserveOnly: deployment ${found.id} may not be observed from here: ${forbidden}`,
      },
      { clearIds: true },
    );
  }
  return publish(
    {
      kind: 'Observed',
      message: `Observing deployment ${found.id} (${found.status}); spec.managementPolicy is ObserveOnly: no writes`,
    },
    {
      deployment: found,
      ...(found.source_config.custom_url ? { agentUrl: found.source_config.custom_url } : {}),
    },
    { track: settledTracking(found) },
  );
}

// ---- no deployment yet ----------------------------------------------------------------

/** Why this object may not adopt `deploymentId`: the namespace rule, unless its own namespace orphaned it. */
function adoptionForbiddenFor(o: Observed, deploymentId: string): string | undefined {
  if (o.adoptionForbidden === undefined) return undefined;
  return o.orphanedHere?.includes(deploymentId) === true ? undefined : o.adoptionForbidden;
}

function decideCreation(o: Observed, spec: ValidSpec, key: string, t: ReconcilerTimings): Action {
  const facts: StatusFacts = { secretVersions: spec.secretVersions };
  const waiting = refusedAndWaiting(o, key, t, facts);
  if (waiting) return waiting;

  const intent = o.ownership.createRequestedAt;
  const hint = o.object.hintedDeploymentId;
  if (
    hint !== undefined &&
    intent === undefined &&
    o.claims[hint] === undefined &&
    adoptionForbiddenFor(o, hint) === undefined
  ) {
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
    const forbidden = free === undefined ? undefined : adoptionForbiddenFor(o, free.id);
    if (o.object.adoptExisting && free && forbidden !== undefined) {
      return publish(
        {
          kind: 'AdoptionNotAllowed',
          message: `spec.adoptExisting: deployment ${free.id} named "${free.name}" is managed by no object, but ${forbidden}; choose another spec.name, or ask the platform team to permit adoption here`,
        },
        { ...facts, ownership: { uid: o.object.uid } },
        { refused: { specKey: key, reason: 'AdoptionNotAllowed' } },
      );
    }
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
  return found.find((deployment) => {
    const createdAt = Date.parse(deployment.created_at);
    return (
      o.claims[deployment.id] === undefined &&
      createdAt >= intentAt - t.createIntentSkewMs &&
      createdAt <= intentAt + t.createIntentWindowMs + t.createIntentSkewMs
    );
  });
}

function disputedMessage(id: string, olderOwner: string): string {
  return `AgentDeployment ${olderOwner}, created earlier, records deployment ${id} as its own; status.ownership of this object is not trusted and nothing is sent`;
}

function foreignNameMessage(o: Observed, deployment: Deployment): string {
  // The other name is not shown: it may be another team's.
  return `status.ownership names deployment ${deployment.id}, which is not named "${o.object.deploymentName}"; it is not this object's and nothing is sent`;
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
  if (reading.deployment.name !== o.object.deploymentName) {
    // No deployment facts: they would copy another team's ids and state into this status.
    return publish({ kind: 'OwnershipConflict', message: foreignNameMessage(o, reading.deployment) });
  }

  const deployment = reading.deployment;
  const inForce = rollbackInForce(o, key);
  const facts: StatusFacts = {
    deployment,
    secretVersions: spec.secretVersions,
    ...(reconcileRequested ? { handledReconcileAt: o.object.reconcileRequestedAt } : {}),
    // The spec a rollback set aside changed: the record is spent, the new spec is applied.
    ...(inForce === undefined && o.status.rollback !== undefined ? { rollback: null } : {}),
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
  const diff = diffDeploymentRemembered(spec.desired, deployment);
  if (diff.immutableChanges.length > 0) {
    return publish(
      {
        kind: 'InvalidSpec',
        message: `These fields cannot change on an existing deployment: ${diff.immutableChanges.map(specPathOf).join(', ')}; delete and recreate the AgentDeployment to change them`,
      },
      facts,
    );
  }
  const manual = manualRollback(o, deployment, key, facts);
  if (manual?.kind === 'rollback') return manual.action;
  // A refused rollback-to value is recorded as handled, with its event, in this pass's publication.
  const settle = (action: Action): Action =>
    manual?.kind === 'refused' && action.kind === 'publish'
      ? withEvent({ ...action, facts: { ...action.facts, handledRollbackTo: manual.value } }, manual.event)
      : action;
  if (inForce) {
    // The set-aside spec is not sent again: follow what runs, told as a rollback.
    return (
      resumeRollback(o, deployment, inForce, facts) ??
      settle(asRolledBack(follow(o, deployment, facts, t), inForce))
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
      equalIgnoringUnset(recordedSecretVersions(o.status), spec.secretVersions);
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
  const followed = follow(o, deployment, facts, t);
  const next = followed.kind === 'publish' && warnings.length > 0 ? { ...followed, warnings } : followed;
  return settle((next.kind === 'publish' ? rollbackOnFailure(o, deployment, next, key) : undefined) ?? next);
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

function follow(o: Observed, deployment: Deployment, ownedFacts: StatusFacts, t: ReconcilerTimings): Action {
  const id = deployment.id;
  const latest = deployment.latest_revision_id;
  if (latest && latest === deployment.active_revision_id)
    return deployed(o, deployment, latest, ownedFacts, t);
  // Until the latest revision is deployed, there is nothing to test: a new revision resets it.
  const facts: StatusFacts = {
    ...ownedFacts,
    smokeTest: o.object.smokeTest
      ? { kind: 'pending', message: `Waiting for revision ${latest ?? '(first)'} to be deployed` }
      : { kind: 'none' },
  };
  if (!latest) {
    return publish({ kind: 'RevisionInProgress', message: 'Waiting for the first revision' }, facts, {
      track: { id, mode: 'inflight' },
    });
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
        track: settledTracking(deployment),
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

/**
 * The latest revision serves. Without spec.smokeTest that is Ready. With it, Ready waits for
 * the verdict of the one test this revision and spec.smokeTest owe: recorded in status, or
 * reached by the calls of this process (Observed.smokeTestAttempts), retried with backoff
 * while the agent warms up and failed once spec.smokeTest.timeoutSeconds is spent.
 */
function deployed(
  o: Observed,
  deployment: Deployment,
  latest: string,
  ownedFacts: StatusFacts,
  t: ReconcilerTimings,
): Action {
  const track: Tracking = settledTracking(deployment);
  const facts: StatusFacts = { ...ownedFacts, latestRevisionStatus: 'DEPLOYED' };
  const url = deployment.source_config.custom_url ?? undefined;
  const smoke = o.object.smokeTest;
  if (!smoke) {
    return publish(
      { kind: 'Deployed', message: `Revision ${latest} is deployed` },
      { ...facts, smokeTest: { kind: 'none' }, ...(url ? { agentUrl: url } : {}) },
      { track },
    );
  }
  const verdict = (result: SmokeTestStatus['result'], message: string): Action => {
    const record: SmokeTestStatus = {
      revisionId: latest,
      specHash: smoke.hash,
      result,
      message: clip(message, VERDICT_LENGTH),
    };
    if (result === 'Passed') {
      return publish(
        { kind: 'Deployed', message: `Revision ${latest} is deployed and passed its smoke test` },
        { ...facts, smokeTest: { kind: 'verdict', verdict: record }, ...(url ? { agentUrl: url } : {}) },
        { track },
      );
    }
    return publish(
      {
        kind: 'SmokeTestFailed',
        message: `Revision ${latest} is deployed but failed its smoke test: ${record.message}`,
      },
      { ...facts, smokeTest: { kind: 'verdict', verdict: record } },
      { track },
    );
  };
  const recorded = o.status.smokeTest;
  if (recorded?.revisionId === latest && recorded.specHash === smoke.hash) {
    return verdict(recorded.result, recorded.message);
  }
  if (!url) return verdict('Failed', 'the deployment has no URL (custom_url) to call');
  // Which key may go to this URL is the key owner's decision, never the URL author's: a
  // refusal makes no call and records no verdict, so that allowing the host heals it.
  const credential = chooseAgentCredential({
    url,
    source: deployment.source,
    trust: o.agentTrust ?? { platformUrls: [], agentHosts: [], tenantChosenEndpoints: false },
    ...(smoke.spec.apiKeySecretRef ? { ownKey: smoke.spec.apiKeySecretRef } : {}),
    connectionLabel: o.connectionLabel ?? 'the default connection',
  });
  if (credential.kind === 'refused') {
    return publish(
      {
        kind: 'SmokeTestRefused',
        message: `Revision ${latest} is deployed; its smoke test was not run: ${credential.message}`,
      },
      { ...facts, smokeTest: { kind: 'refused', message: `not run: ${credential.message}` } },
      { track },
    );
  }

  const testKey = `${latest}|${smoke.hash}`;
  const attempts = o.smokeTestAttempts?.testKey === testKey ? o.smokeTestAttempts : undefined;
  const last = attempts?.last;
  if (last?.kind === 'passed') return verdict('Passed', last.message);
  if (last?.kind === 'failed') return verdict('Failed', last.message);
  const budgetMs = smoke.spec.timeoutSeconds * 1000;
  const pending = (message: string, requeueAfterMs: number): Action =>
    publish(
      { kind: 'SmokeTestPending', message: `Revision ${latest} is deployed; ${message}` },
      { ...facts, smokeTest: { kind: 'pending', message } },
      { track, requeueAfterMs },
    );
  // The call's completion wakes the key; the timer is a safety net, never a tight loop.
  if (attempts?.inFlight) return pending(`calling the agent at ${url}`, budgetMs);
  const elapsed = attempts ? o.now - attempts.firstAttemptAt : 0;
  if (attempts && last) {
    if (elapsed >= budgetMs) {
      return verdict(
        'Failed',
        `no passing answer within ${smoke.spec.timeoutSeconds} s (${attempts.attempts} attempts); last: ${last.message}`,
      );
    }
    const delay = smokeTestRetryDelayMs(attempts.attempts, t.smokeTestRetryMs, t.smokeTestRetryMaxMs);
    const due = (attempts.lastFinishedAt ?? attempts.firstAttemptAt) + delay;
    if (o.now < due) {
      return pending(
        `attempt ${attempts.attempts} failed (${last.message}); trying again in ${delay / 1000} s`,
        due - o.now,
      );
    }
  }
  const calling = `calling the agent at ${url}`;
  return {
    kind: 'smokeTest',
    testKey,
    url,
    credential,
    ...(smoke.spec.headers?.length ? { headers: smokeTestHeaderRefs(smoke.spec) } : {}),
    input: smoke.spec.input,
    ...(smoke.spec.expect ? { expect: smoke.spec.expect } : {}),
    // One deadline per call, within what is left of the budget.
    timeoutMs: Math.max(budgetMs - elapsed, MIN_SMOKE_CALL_MS),
    state: { kind: 'SmokeTestPending', message: `Revision ${latest} is deployed; ${calling}` },
    facts: { ...facts, smokeTest: { kind: 'pending', message: calling } },
    deploymentId: deployment.id,
    ...(track.mode === 'follow' ? { settledMode: 'follow' as const } : {}),
  };
}

/** The shortest deadline a smoke-test call gets, however little budget is left. */
const MIN_SMOKE_CALL_MS = 1_000;

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

function warning(reason: string, message: string): EventSpec {
  return { type: 'Warning', reason, message };
}
