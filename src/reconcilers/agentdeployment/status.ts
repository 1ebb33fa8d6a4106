// The next status of an object: conditions from the sync state, ids and revision facts
// from the last observation. A status equal to the current one (lastSyncTime aside) is not
// written, so a reconcile that finds nothing new makes no write at all.
import type { Deployment } from '../../controlplane/models/index.js';
import { setConditions } from './conditions.js';
import { equalIgnoringUnset } from './deep-equal.js';
import { generationOf, type AgentDeploymentStatusView, type AgentDeploymentView } from './object.js';
import { conditionsFor, type SyncState } from './sync-state.js';

export interface StatusFacts {
  deployment?: Deployment;
  latestRevisionStatus?: string;
  secretVersions?: Record<string, string>;
  /** Forget the ids (the deployment is gone and will be recreated). */
  clearIds?: boolean;
}

export function nextStatus(
  object: AgentDeploymentView,
  state: SyncState,
  facts: StatusFacts,
  now: Date,
): AgentDeploymentStatusView {
  const previous = object.status ?? {};
  const deployment = facts.deployment;
  const status: AgentDeploymentStatusView = {
    ...previous,
    observedGeneration: generationOf(object),
    conditions: setConditions(previous.conditions, conditionsFor(state), generationOf(object), now),
  };
  if (facts.clearIds) {
    for (const field of [
      'deploymentId',
      'tenantId',
      'latestRevisionId',
      'latestRevisionStatus',
      'activeRevisionId',
      'deploymentStatus',
      'customUrl',
    ] as const) {
      delete status[field];
    }
  }
  if (deployment) {
    status.deploymentId = deployment.id;
    status.tenantId = deployment.tenant_id;
    status.deploymentStatus = deployment.status;
    if (deployment.latest_revision_id) status.latestRevisionId = deployment.latest_revision_id;
    if (deployment.active_revision_id) status.activeRevisionId = deployment.active_revision_id;
    if (deployment.source_config.custom_url) status.customUrl = deployment.source_config.custom_url;
  }
  if (facts.latestRevisionStatus) status.latestRevisionStatus = facts.latestRevisionStatus;
  if (facts.secretVersions) status.secretVersions = facts.secretVersions;
  return status;
}

export function statusChanged(
  previous: AgentDeploymentStatusView | undefined,
  next: AgentDeploymentStatusView,
): boolean {
  const { lastSyncTime: _a, ...before } = previous ?? {};
  const { lastSyncTime: _b, ...after } = next;
  return !equalIgnoringUnset(before, after);
}
