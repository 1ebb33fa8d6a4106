// The outcome of one reconcile, as a closed set of states, and the kstatus conditions each
// one publishes. Every reason used in status, events and docs comes from here.
import type { ConditionUpdate } from './conditions.js';
import type { ConnectionRefusalReason } from './ports.js';

export type SyncState =
  | { kind: 'Creating'; message: string }
  | { kind: 'RevisionInProgress'; message: string }
  | { kind: 'Deployed'; message: string }
  | { kind: 'RevisionFailed'; message: string }
  | { kind: 'InvalidSpec'; message: string }
  | { kind: 'Rejected'; message: string }
  | { kind: 'NameConflict'; message: string }
  /** status.ownership names a deployment this object cannot own (another name, or an older object's). */
  | { kind: 'OwnershipConflict'; message: string }
  /** adoptExisting (or a hint) found a deployment, but the operator's configuration forbids adoption here. */
  | { kind: 'AdoptionNotAllowed'; message: string }
  | { kind: 'SecretNotFound'; message: string }
  | { kind: 'Throttled'; message: string }
  | { kind: 'ControlPlaneUnavailable'; message: string }
  | { kind: 'Deleting'; message: string }
  | { kind: 'Suspended'; message: string }
  /** spec.smokeTest: the revision is deployed and the call to it is under way or retried. */
  | { kind: 'SmokeTestPending'; message: string }
  /** spec.smokeTest failed within its budget: not Ready, not retried until the spec or revision changes. */
  | { kind: 'SmokeTestFailed'; message: string }
  /**
   * spec.smokeTest would send a shared key to an address its owner did not allow: no call is
   * made until the connection's agentHosts, the agent's URL or spec.smokeTest changes.
   */
  | { kind: 'SmokeTestRefused'; message: string }
  /**
   * spec.rollback (or the rollback-to annotation): the deployment runs an older revision than
   * the spec asks for; the set-aside spec is not sent again until it changes.
   */
  | { kind: 'RolledBack'; message: string }
  /** spec.managementPolicy ObserveOnly: the deployment is found and mirrored. */
  | { kind: 'Observed'; message: string }
  /** spec.managementPolicy ObserveOnly: nothing of that name or id; looked for again slowly. */
  | { kind: 'DeploymentNotFound'; message: string }
  | { kind: ConnectionRefusalReason; message: string };

export type SyncReason = SyncState['kind'];

/** Terminal states: nothing changes until the spec (or a referenced Secret or connection) does. */
const STALLED: ReadonlySet<SyncReason> = new Set<SyncReason>([
  'RevisionFailed',
  'RolledBack',
  'InvalidSpec',
  'Rejected',
  'NameConflict',
  'OwnershipConflict',
  'AdoptionNotAllowed',
  'SmokeTestRefused',
  'ConnectionNotFound',
  'ConnectionNotReady',
  'ConnectionNotAllowed',
]);

export function isStalled(state: SyncState): boolean {
  return STALLED.has(state.kind);
}

export function conditionsFor(state: SyncState): ConditionUpdate[] {
  const { kind: reason, message } = state;
  if (reason === 'Deployed' || reason === 'Observed') {
    return [
      { type: 'Ready', status: 'True', reason, message },
      { type: 'Reconciling', status: 'False', reason, message },
      { type: 'Stalled', status: 'False', reason, message },
    ];
  }
  if (reason === 'Suspended') {
    // Ready is left as it was: suspension stops the operator, not the agent.
    return [
      { type: 'Reconciling', status: 'False', reason, message },
      { type: 'Stalled', status: 'False', reason, message },
    ];
  }
  if (reason === 'SmokeTestFailed' || reason === 'DeploymentNotFound') {
    // Not Stalled: the agent runs and the spec may be right; a new revision or a changed
    // smoke test tries again. Not Reconciling either: nothing more happens until then.
    // DeploymentNotFound likewise: nothing to do but look again, slowly, until it appears.
    return [
      { type: 'Ready', status: 'False', reason, message },
      { type: 'Reconciling', status: 'False', reason, message },
      { type: 'Stalled', status: 'False', reason, message },
    ];
  }
  if (isStalled(state)) {
    return [
      { type: 'Ready', status: 'False', reason, message },
      { type: 'Reconciling', status: 'False', reason, message },
      { type: 'Stalled', status: 'True', reason, message },
    ];
  }
  return [
    { type: 'Ready', status: 'False', reason, message },
    { type: 'Reconciling', status: 'True', reason, message },
    { type: 'Stalled', status: 'False', reason, message },
  ];
}
