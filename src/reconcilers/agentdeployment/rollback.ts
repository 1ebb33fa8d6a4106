// Rollback: setting the owned deployment back to what an older revision ran. Pure, like
// `decide`, which calls it from the ownsDeployment rung only (so it only ever PATCHes the
// deployment this object owns, verified by name).
//
// Two forms:
// - spec.rollback.onFailure: when the latest revision ends CREATE_FAILED, BUILD_FAILED or
//   DEPLOY_FAILED, or fails spec.smokeTest, go back to the newest revision of
//   status.revisionHistory that was deployed (and passed its smoke test, with spec.smokeTest).
// - the rollback-to annotation: go back to the revision it names (an id, or its first 8
//   characters, from status.revisionHistory), whatever the policy.
//
// What the API can restore: a PATCH of source_revision_config makes a new revision from it.
// An image deployment gets the good revision's image_uri back, exactly (a digest, if it was
// pinned). A repository deployment gets its repo_ref and graph_config_path back, but the API
// cannot pin a commit: the new revision builds the ref's current head. A rollback to the same
// ref and path would rebuild what failed, so it is not sent (RollbackNotPossible says so).
// Secrets and resource_spec are not restored: they are not part of a revision's record.
//
// After the PATCH, status.rollback records what was set aside (its specKey): the spec is not
// sent again until it changes (a new generation, Secret version or redeploy-at value), and the
// object reads Ready=False, Stalled=True, reason RolledBack, so that Argo CD and Flux show it
// degraded: the cluster runs an older revision than Git asks for.
import type { RevisionRecord, RollbackRecord } from '../../api/agentdeployment/index.js';
import type { Deployment, DeploymentPatchRequest } from '../../controlplane/models/index.js';
import type { Action, EventSpec } from './action.js';
import { shortRevisionId } from './history.js';
import { ROLLBACK_TO_ANNOTATION } from './object.js';
import type { Observed } from './observed.js';
import type { StatusFacts } from './status.js';

type Publish = Extract<Action, { kind: 'publish' }>;

/** The rollback that holds for this spec: status.rollback, recorded for this very spec key. */
export function rollbackInForce(o: Observed, key: string): RollbackRecord | undefined {
  const record = o.status.rollback;
  return record?.specKey === key ? record : undefined;
}

/**
 * A rollback recorded for this spec whose PATCH has not landed (the latest revision is still
 * the one set aside): send it again. Otherwise undefined: follow what runs.
 */
export function resumeRollback(
  o: Observed,
  deployment: Deployment,
  record: RollbackRecord,
  facts: StatusFacts,
): Action | undefined {
  if (deployment.latest_revision_id !== record.failedRevisionId) return undefined;
  const target = o.status.revisionHistory?.find((entry) => entry.id === record.revisionId);
  const patch = target ? patchBackTo(target) : undefined;
  if (!target || !patch || patch === 'same source') return undefined;
  return rollbackAction(deployment, target, patch, record, facts);
}

/** What status says while the rollback holds: the follow state, told as a rollback. */
export function asRolledBack(action: Action, record: RollbackRecord): Action {
  if (action.kind !== 'publish') return action;
  const back = `rolled back to revision ${shortRevisionId(record.revisionId)} (${record.reason})`;
  if (action.state.kind === 'Deployed') {
    return {
      ...action,
      state: {
        kind: 'RolledBack',
        message: `${capitalize(back)}; ${action.state.message}; the spec is not applied again until it changes`,
      },
    };
  }
  if (action.state.kind === 'RevisionInProgress' || action.state.kind === 'SmokeTestPending') {
    return { ...action, state: { ...action.state, message: `${action.state.message}; ${back}` } };
  }
  return action;
}

/**
 * spec.rollback.onFailure: `failed` is what decide would publish (RevisionFailed or
 * SmokeTestFailed). The rollback, or the failure itself with a RollbackNotPossible event.
 */
export function rollbackOnFailure(
  o: Observed,
  deployment: Deployment,
  failed: Publish,
  key: string,
): Action | undefined {
  if (o.object.rollbackOnFailure !== true) return undefined;
  if (failed.state.kind !== 'RevisionFailed' && failed.state.kind !== 'SmokeTestFailed') return undefined;
  const failedId = deployment.latest_revision_id;
  if (!failedId) return undefined;
  const history = o.status.revisionHistory ?? [];
  const failedEntry = history.find((entry) => entry.id === failedId);
  const candidates = history.filter(
    (entry) =>
      entry.id !== failedId &&
      entry.status === 'DEPLOYED' &&
      (o.object.smokeTest === undefined ? entry.smokeTest !== 'Failed' : entry.smokeTest === 'Passed'),
  );
  let blocked: string | undefined;
  for (const target of candidates) {
    const patch = patchBackTo(target, failedEntry);
    if (patch === 'same source') {
      blocked ??= `revision ${shortRevisionId(target.id)} was built from the same ref and graph configuration path; the API cannot pin a commit, so setting them back would rebuild what failed`;
      continue;
    }
    if (!patch) continue;
    const record: RollbackRecord = {
      revisionId: target.id,
      failedRevisionId: failedId,
      reason:
        failed.state.kind === 'SmokeTestFailed'
          ? `revision ${shortRevisionId(failedId)} failed its smoke test`
          : `revision ${shortRevisionId(failedId)} ended ${failed.facts.latestRevisionStatus ?? 'failed'}`,
      at: new Date(o.now).toISOString(),
      specKey: key,
    };
    return rollbackAction(deployment, target, patch, record, failed.facts, failed);
  }
  const why =
    blocked ??
    (candidates.length === 0
      ? `no revision in status.revisionHistory was deployed${o.object.smokeTest ? ' and passed its smoke test' : ''}`
      : 'the image or ref of the last good revision is not known');
  return withEvent(failed, {
    type: 'Warning',
    reason: 'RollbackNotPossible',
    message: `spec.rollback.onFailure: revision ${shortRevisionId(failedId)} is not rolled back: ${why}`,
  });
}

/**
 * The rollback-to annotation, when its value is new: the rollback it asks for, or a refusal
 * (an event naming the annotation and the rule, attached to this pass's publication).
 */
export function manualRollback(
  o: Observed,
  deployment: Deployment,
  key: string,
  facts: StatusFacts,
): { kind: 'rollback'; action: Action } | { kind: 'refused'; event: EventSpec; value: string } | undefined {
  const value = o.object.rollbackTo;
  if (value === undefined || value === o.status.lastHandledRollbackTo) return undefined;
  const refuse = (rule: string) => ({
    kind: 'refused' as const,
    value,
    event: {
      type: 'Warning' as const,
      reason: 'RollbackRefused',
      message: `metadata.annotations["${ROLLBACK_TO_ANNOTATION}"]: "${clipValue(value)}" ${rule}`,
    },
  });
  const wanted = value.trim().toLowerCase();
  const target = (o.status.revisionHistory ?? []).find(
    (entry) => entry.id === wanted || shortRevisionId(entry.id) === wanted,
  );
  if (!target) {
    return refuse(
      'is not a revision of status.revisionHistory; only a revision listed there (by id or its first 8 characters) can be rolled back to',
    );
  }
  if (target.id === deployment.latest_revision_id) return refuse('is the latest revision already');
  const patch = patchBackTo(target);
  if (!patch || patch === 'same source') {
    return refuse('names a revision whose image or ref status.revisionHistory does not record');
  }
  const record: RollbackRecord = {
    revisionId: target.id,
    ...(deployment.latest_revision_id ? { failedRevisionId: deployment.latest_revision_id } : {}),
    reason: `asked by the ${ROLLBACK_TO_ANNOTATION} annotation`,
    at: new Date(o.now).toISOString(),
    specKey: key,
  };
  return {
    kind: 'rollback',
    action: rollbackAction(deployment, target, patch, record, { ...facts, handledRollbackTo: value }),
  };
}

/** Attaches an event to a publication (emitted if the status changes). */
export function withEvent(action: Action, event: EventSpec): Action {
  if (action.kind !== 'publish') return action;
  return { ...action, events: [...(action.events ?? []), event] };
}

function rollbackAction(
  deployment: Deployment,
  target: RevisionRecord,
  patch: DeploymentPatchRequest,
  record: RollbackRecord,
  facts: StatusFacts,
  failed?: Publish,
): Action {
  const to = `revision ${shortRevisionId(target.id)} (${describeSource(target)})`;
  return {
    kind: 'rollback',
    deployment,
    patch,
    state: {
      kind: 'RolledBack',
      message: `Rolling back to ${to}: ${record.reason}${failed ? `; ${failed.state.message}` : ''}`,
    },
    facts: { ...facts, rollback: record },
    event: {
      type: 'Warning',
      reason: 'RolledBack',
      message: `Set deployment ${deployment.id} back to ${to}: ${record.reason}; the spec is not applied again until it changes`,
    },
  };
}

/**
 * The PATCH that makes a new revision from `target`'s source; 'same source' when it is a
 * repository revision of the same ref and path as the one that failed (see the header).
 */
function patchBackTo(
  target: RevisionRecord,
  failed?: RevisionRecord,
): DeploymentPatchRequest | 'same source' | undefined {
  if (target.image) return { source_revision_config: { image_uri: target.image } };
  if (!target.repoRef) return undefined;
  if (failed && failed.repoRef === target.repoRef && failed.graphConfigPath === target.graphConfigPath)
    return 'same source';
  return {
    source_revision_config: {
      repo_ref: target.repoRef,
      ...(target.graphConfigPath ? { graph_config_path: target.graphConfigPath } : {}),
    },
  };
}

function describeSource(entry: RevisionRecord): string {
  if (entry.image) return `image ${entry.image}`;
  const path = entry.graphConfigPath ? `, ${entry.graphConfigPath}` : '';
  return `ref ${entry.repoRef ?? '?'}${path}${entry.commit ? `, built from commit ${entry.commit.slice(0, 12)}` : ''}`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** An annotation value goes into an event: at most 64 characters of it. */
function clipValue(value: string): string {
  return value.length <= 64 ? value : `${value.slice(0, 63)}…`;
}
