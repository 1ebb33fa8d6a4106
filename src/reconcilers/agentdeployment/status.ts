// The next status of an object: conditions from the sync state, ids and revision facts
// from the last observation. A status equal to the current one (lastSyncTime aside) is not
// written, so a reconcile that finds nothing new makes no write at all (and `kubectl get -w`
// prints a line only when something changed).
import type { Deployment } from '../../controlplane/models/index.js';
import type { RollbackRecord, SmokeTestStatus } from '../../api/agentdeployment/index.js';
import { setConditions, withoutCondition, type ConditionUpdate } from './conditions.js';
import { equalIgnoringUnset } from '../../runtime/equal-ignoring-unset.js';
import { nextRevisionHistory, revisionSummaries } from './history.js';
import {
  generationOf,
  secretVersionList,
  type AgentDeploymentStatusView,
  type AgentDeploymentView,
  type OwnershipView,
} from './object.js';
import { conditionsFor, type SyncState } from './sync-state.js';

/** What status says of spec.smokeTest: a verdict, a test under way, or nothing (none configured). */
export type SmokeTestFacts =
  | { kind: 'verdict'; verdict: SmokeTestStatus }
  | { kind: 'pending'; message: string }
  /** Not run: the call would send a shared key where its owner did not allow; no verdict is recorded. */
  | { kind: 'refused'; message: string }
  | { kind: 'none' };

export interface StatusFacts {
  deployment?: Deployment;
  latestRevisionStatus?: string;
  secretVersions?: Record<string, string>;
  /** Forget the ids (the deployment is gone and will be recreated). */
  clearIds?: boolean;
  /** The new ownership record; null removes it. */
  ownership?: OwnershipView | null;
  handledRedeployAt?: string;
  handledReconcileAt?: string;
  smokeTest?: SmokeTestFacts;
  /** The agent's address, once its latest revision serves (and passed its smoke test, if any). */
  agentUrl?: string;
  /** A rollback was sent (status.rollback); null: the spec changed, the record is spent. */
  rollback?: RollbackRecord | null;
  handledRollbackTo?: string;
}

const DEPLOYMENT_FIELDS = [
  'deploymentId',
  'tenantId',
  'latestRevisionId',
  'latestRevisionStatus',
  'activeRevisionId',
  'deploymentStatus',
  'customUrl',
  'activeRevision',
  'latestRevision',
  'revisionHistory',
  'rollback',
] as const;

export function nextStatus(
  /** Only its status and generation are read (decide computes the status an adoption leaves). */
  object: Pick<AgentDeploymentView, 'status'> & { metadata: { generation?: number } },
  state: SyncState,
  facts: StatusFacts,
  now: Date,
): AgentDeploymentStatusView {
  const previous = object.status ?? {};
  const generation = generationOf(object);
  const status: AgentDeploymentStatusView = {
    ...previous,
    conditions: setConditions(
      previous.conditions,
      [...conditionsFor(state), ...smokeTestCondition(facts.smokeTest)],
      generation,
      now,
    ),
  };
  applySmokeTestFacts(status, facts.smokeTest);
  // A suspended object has not acted on its spec: status must not claim it observed a
  // generation it never applied (kstatus then reads it as in progress, never as Ready).
  if (state.kind !== 'Suspended') status.observedGeneration = generation;
  if (facts.clearIds) {
    for (const field of DEPLOYMENT_FIELDS) delete status[field];
    // The next deployment of this name may come with another project: looked up again.
    delete status.tracingProject;
  }
  const deployment = facts.deployment;
  if (deployment) {
    status.deploymentId = deployment.id;
    status.tenantId = deployment.tenant_id;
    status.deploymentStatus = deployment.status;
    if (deployment.latest_revision_id) status.latestRevisionId = deployment.latest_revision_id;
    if (deployment.active_revision_id) status.activeRevisionId = deployment.active_revision_id;
    if (deployment.source_config.custom_url) status.customUrl = deployment.source_config.custom_url;
  }
  if (facts.latestRevisionStatus) status.latestRevisionStatus = facts.latestRevisionStatus;
  if (deployment) {
    const history = nextRevisionHistory(previous.revisionHistory, {
      deployment,
      ...(facts.latestRevisionStatus ? { latestStatus: facts.latestRevisionStatus } : {}),
      ...(facts.smokeTest?.kind === 'verdict' ? { verdict: facts.smokeTest.verdict } : {}),
      now,
    });
    status.revisionHistory = history;
    const { active, latest } = revisionSummaries(history, deployment);
    if (active) status.activeRevision = active;
    if (latest) status.latestRevision = latest;
  }
  if (facts.rollback === null) delete status.rollback;
  else if (facts.rollback) status.rollback = facts.rollback;
  if (facts.handledRollbackTo !== undefined) status.lastHandledRollbackTo = facts.handledRollbackTo;
  if (facts.secretVersions) status.secretVersions = secretVersionList(facts.secretVersions);
  if (facts.ownership === null) delete status.ownership;
  else if (facts.ownership) status.ownership = facts.ownership;
  if (facts.handledRedeployAt !== undefined) status.lastHandledRedeployAt = facts.handledRedeployAt;
  if (facts.handledReconcileAt !== undefined) status.lastHandledReconcileAt = facts.handledReconcileAt;
  if (facts.agentUrl !== undefined) status.url = facts.agentUrl;
  return status;
}

function smokeTestCondition(facts: SmokeTestFacts | undefined): ConditionUpdate[] {
  if (facts === undefined || facts.kind === 'none') return [];
  if (facts.kind === 'pending') {
    return [
      { type: 'SmokeTestPassed', status: 'Unknown', reason: 'SmokeTestPending', message: facts.message },
    ];
  }
  if (facts.kind === 'refused') {
    return [{ type: 'SmokeTestPassed', status: 'False', reason: 'SmokeTestRefused', message: facts.message }];
  }
  const { verdict } = facts;
  const passed = verdict.result === 'Passed';
  return [
    {
      type: 'SmokeTestPassed',
      status: passed ? 'True' : 'False',
      reason: passed ? 'SmokeTestPassed' : 'SmokeTestFailed',
      message: `Revision ${verdict.revisionId}: ${verdict.message}`,
    },
  ];
}

function applySmokeTestFacts(status: AgentDeploymentStatusView, facts: SmokeTestFacts | undefined): void {
  if (facts?.kind === 'none') {
    delete status.smokeTest;
    if (status.conditions) status.conditions = withoutCondition(status.conditions, 'SmokeTestPassed');
  } else if (facts?.kind === 'verdict') {
    status.smokeTest = facts.verdict;
  }
}

export function statusChanged(
  previous: AgentDeploymentStatusView | undefined,
  next: AgentDeploymentStatusView,
): boolean {
  const { lastSyncTime: _a, ...before } = previous ?? {};
  const { lastSyncTime: _b, ...after } = next;
  return !equalIgnoringUnset(before, after);
}

/**
 * The revision outcome a status change announces: the latest revision reached a terminal
 * state it was not recorded in before. Derived from the status (which survives restarts),
 * not from process memory, so a restarted operator never announces a revision twice.
 */
export function revisionOutcome(
  previous: AgentDeploymentStatusView | undefined,
  next: AgentDeploymentStatusView,
  isTerminal: (status: string) => boolean,
): { revisionId: string; status: string } | undefined {
  const revisionId = next.latestRevisionId;
  const status = next.latestRevisionStatus;
  if (!revisionId || !status || !isTerminal(status)) return undefined;
  if (previous?.latestRevisionId === revisionId && previous.latestRevisionStatus === status) return undefined;
  return { revisionId, status };
}

/** The smoke-test verdict a status change announces: one not recorded before (a new revision, spec or result). */
export function smokeTestOutcome(
  previous: AgentDeploymentStatusView | undefined,
  next: AgentDeploymentStatusView,
): SmokeTestStatus | undefined {
  const verdict = next.smokeTest;
  if (!verdict) return undefined;
  const before = previous?.smokeTest;
  const same =
    before?.revisionId === verdict.revisionId &&
    before.specHash === verdict.specHash &&
    before.result === verdict.result;
  return same ? undefined : verdict;
}
