// Everything `decide` knows, as plain data: the object, what the fleet claims, what the
// control plane showed, the memory of the last attempt, and the time. The shell fills it in
// (observe.ts); `decide` may ask for one more remote reading at a time.
import type { SmokeTest } from '../../api/agentdeployment/index.js';
import type { AgentTrust } from '../../egress/agent-credential.js';
import type { Deployment, DeploymentCreateRequest } from '../../controlplane/models/index.js';
import type { AgentDeploymentStatusView } from './object.js';
import type { ConnectionRefusalReason, Failure } from './ports.js';
import type { StatusFacts } from './status.js';
import type { ExportReading } from './export.js';

export interface ObservedObject {
  key: string;
  uid: string;
  generation: number;
  deleting: boolean;
  hasFinalizer: boolean;
  suspend: boolean;
  adoptExisting: boolean;
  /** spec.managementPolicy is ObserveOnly: read the deployment, never write, never delete. */
  observeOnly: boolean;
  deletionPolicy: 'Delete' | 'Orphan';
  /** spec.tracingProjectDeletionPolicy is Delete: the owned deployment's DELETE takes its tracing project. */
  deleteTracingProject?: boolean;
  /** The control-plane name the spec resolves to. */
  deploymentName: string;
  /** The deployment-id annotation, when it is a well-formed id: a hint, never proof. */
  hintedDeploymentId?: string;
  redeployAt?: string;
  reconcileRequestedAt?: string;
  /** spec.smokeTest with its digest (a change of the digest runs the test again). */
  smokeTest?: { spec: SmokeTest; hash: string };
  /** spec.rollback.onFailure: set a failed revision back to the last one that worked. */
  rollbackOnFailure?: boolean;
  /** The rollback-to annotation: a revision of status.revisionHistory to set the deployment back to. */
  rollbackTo?: string;
}

export type SpecReading =
  | { kind: 'valid'; desired: DeploymentCreateRequest; secretVersions: Record<string, string> }
  /** The object slipped past validation: it is skipped until it changes. */
  | { kind: 'invalid'; message: string }
  | { kind: 'secretMissing'; message: string }
  /** A listenerRef or integrationRef names nothing on the object's control plane. */
  | { kind: 'unknownName'; message: string }
  /** Reading the listener or integration names failed (throttled, 5xx...). */
  | { kind: 'namesFailed'; error: Failure };

export type DeploymentReading =
  | { kind: 'unobserved' }
  | { kind: 'present'; deployment: Deployment }
  | { kind: 'gone' }
  /** The batched poller will fetch it and wake the key. */
  | { kind: 'pending'; retryAfterMs: number }
  | { kind: 'failed'; error: Failure };

export type NameReading =
  { kind: 'unobserved' } | { kind: 'found'; deployments: Deployment[] } | { kind: 'failed'; error: Failure };

export type RefusedReason = 'Rejected' | 'NameConflict' | 'AdoptionNotAllowed';

/** A create or update the control plane refused, remembered so that it is not repeated in a loop. */
export interface RefusedAttempt {
  /** generation, Secret versions and redeploy value the refused request was built from. */
  specKey: string;
  reason: RefusedReason;
  message: string;
  at: number;
  /** Re-checks that were refused again (the re-check delay doubles with each). */
  recheckFailures: number;
}

/**
 * A create the control plane refused as Terminal, whose meaning is not yet known: a name
 * clash or another reason. The shell records it; the next `decide` asks for the name lookup
 * and publishes NameConflict or Rejected.
 */
export interface RefusedCreate {
  /** The key of the refused request (see RefusedAttempt.specKey). */
  specKey: string;
  /** The control-plane name the request asked for. */
  name: string;
  /** The server's reason (safe to show: no secret value, no request body). */
  message: string;
  /** What status records with the verdict (the Secret versions the request was built from). */
  facts: StatusFacts;
}

/** How a finished smoke-test call ended. */
export type SmokeTestOutcome =
  | { kind: 'passed'; message: string }
  /** Worth another attempt while the budget lasts (503 while warming up, timeout, refused connection). */
  | { kind: 'retryable'; message: string }
  | { kind: 'failed'; message: string };

/** The smoke-test calls made for one revision and spec.smokeTest, in this process. */
export interface SmokeTestAttempts {
  /** `<revision id>|<spec digest>`: the test these attempts belong to. */
  testKey: string;
  /** Attempts started so far. */
  attempts: number;
  firstAttemptAt: number;
  /** A call is running (in the background: it holds no worker). */
  inFlight: boolean;
  last?: SmokeTestOutcome;
  lastFinishedAt?: number;
}

export interface Observed {
  now: number;
  object: ObservedObject;
  status: AgentDeploymentStatusView;
  /**
   * status.ownership, only if recorded for this object's uid and its id is a UUID.
   * `disputedBy`: an older object of the fleet records the same deployment id, so this
   * record is not trusted (status can be written by whoever has that RBAC right).
   */
  ownership: { deploymentId?: string; createRequestedAt?: number; disputedBy?: string };
  /** Why adopting an existing deployment is not permitted for this object (the rule), or undefined when it is. */
  adoptionForbidden?: string;
  /** Deployments this object's namespace orphaned: it may adopt them back whatever adoptionForbidden says. */
  orphanedHere?: readonly string[];
  spec: SpecReading;
  /** The key of another object that wins the claim on this name, if any (fleet cache). */
  rival?: string;
  /** id → key of another object that recorded it as its own, for the ids observed so far. */
  claims: Readonly<Record<string, string>>;
  deployment: DeploymentReading;
  byName: NameReading;
  /** Revision statuses known to this process (a GET, or it saw the revision start), by id. */
  knownRevisions: Readonly<Record<string, string>>;
  /** Whether a revision GET may be made now (its pace is due and the budget has room), and when it will be due. */
  revisionPoll: { allowed: boolean; dueInMs: number };
  refused?: RefusedAttempt;
  /** A create refused in the last pass, not yet told apart (name clash or not). */
  refusedCreate?: RefusedCreate;
  smokeTestAttempts?: SmokeTestAttempts;
  /**
   * Where the object's connection's key may be sent besides the control plane (the smoke
   * test's call to the agent); absent: nowhere but a platform-assigned URL.
   */
  agentTrust?: AgentTrust;
  /** How messages name the object's connection. */
  connectionLabel?: string;
  /** spec.export and the ConfigMaps this object exported; absent: the operator has no export cache. */
  export?: ExportReading;
  /** Why the object's connection (spec.connectionRef) cannot be used; absent when it can. */
  connectionRefused?: { reason: ConnectionRefusalReason; message: string };
}
