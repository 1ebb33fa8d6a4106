// The parts of an AgentDeployment the reconciler reads and writes, and the names it owns on
// the object (finalizer, annotations it reads). What the object owns on the control plane
// lives in status.ownership, keyed by the object's uid: tenants can edit annotations, not
// status, so an annotation is never proof of ownership.
import {
  ANNOTATIONS,
  FINALIZER,
  type EnvFromSource,
  type ExportSpec,
  type SecretReference,
  type SmokeTest,
  type SmokeTestStatus,
  type RevisionRecord,
  type RevisionSummary,
  type RollbackRecord,
} from '../../api/agentdeployment/index.js';
import type { Condition } from './conditions.js';
import { hasFinalizer as hasKitFinalizer } from '../../runtime/reconcile/finalizers.js';

export { FINALIZER };
/** A hint of the deployment id, verified before use (see decide.ts). */
export const DEPLOYMENT_ID_ANNOTATION = ANNOTATIONS.deploymentId;
export const REDEPLOY_AT_ANNOTATION = ANNOTATIONS.redeployAt;
export const RECONCILE_REQUESTED_AT_ANNOTATION = ANNOTATIONS.reconcileRequestedAt;
/** A revision id of status.revisionHistory to set the deployment back to (see rollback.ts). */
export const ROLLBACK_TO_ANNOTATION = ANNOTATIONS.rollbackTo;

/** The spec fields that steer the reconciler itself (the rest goes to the wire mapping). */
export interface ReconcilerSpecView {
  name?: string;
  secrets?: SecretReference[];
  envFrom?: EnvFromSource[];
  deletionPolicy?: 'Delete' | 'Orphan';
  tracingProjectDeletionPolicy?: 'Retain' | 'Delete';
  suspend?: boolean;
  adoptExisting?: boolean;
  managementPolicy?: 'Full' | 'ObserveOnly';
  smokeTest?: SmokeTest;
  export?: ExportSpec;
  rollback?: { onFailure?: boolean };
}

export interface OwnershipView {
  uid: string;
  deploymentId?: string;
  createRequestedAt?: string;
}

export interface AgentDeploymentStatusView {
  observedGeneration?: number;
  conditions?: Condition[];
  deploymentId?: string;
  tenantId?: string;
  latestRevisionId?: string;
  latestRevisionStatus?: string;
  activeRevisionId?: string;
  deploymentStatus?: string;
  customUrl?: string;
  url?: string;
  smokeTest?: SmokeTestStatus;
  tracingProject?: { name: string; id: string };
  lastSyncTime?: string;
  ownership?: OwnershipView;
  lastHandledRedeployAt?: string;
  lastHandledReconcileAt?: string;
  secretVersions?: SecretVersionView[];
  activeRevision?: RevisionSummary;
  latestRevision?: RevisionSummary;
  revisionHistory?: RevisionRecord[];
  rollback?: RollbackRecord;
  lastHandledRollbackTo?: string;
}

/** One referenced Secret and the resourceVersion the latest revision was made with. */
export interface SecretVersionView {
  name: string;
  resourceVersion: string;
}

/** status.secretVersions as a map by Secret name, the shape the reconciler compares. */
export function recordedSecretVersions(status: AgentDeploymentStatusView): Record<string, string> {
  const recorded: unknown = status.secretVersions;
  // Operators before 0.2 wrote a map by Secret name; read it until the next status write.
  if (recorded !== null && typeof recorded === 'object' && !Array.isArray(recorded)) {
    return recorded as Record<string, string>;
  }
  return Object.fromEntries(
    (status.secretVersions ?? []).map((entry) => [entry.name, entry.resourceVersion]),
  );
}

/** A map by Secret name as status.secretVersions, sorted so that equal maps publish equal lists. */
export function secretVersionList(versions: Record<string, string>): SecretVersionView[] {
  return Object.keys(versions)
    .sort()
    .map((name) => ({ name, resourceVersion: versions[name] ?? '' }));
}

/** The same versions as one string, `name=version` sorted by name: equal maps give equal keys. */
export function secretVersionsKey(versions: Record<string, string>): string {
  return secretVersionList(versions)
    .map(({ name, resourceVersion }) => `${name}=${resourceVersion}`)
    .join(',');
}

export interface AgentDeploymentView<Spec extends ReconcilerSpecView = ReconcilerSpecView> {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace: string;
    uid?: string;
    generation?: number;
    resourceVersion?: string;
    creationTimestamp?: string;
    annotations?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
  };
  spec: Spec;
  status?: AgentDeploymentStatusView;
}

export function objectKey(object: { metadata: { namespace: string; name: string } }): string {
  return `${object.metadata.namespace}/${object.metadata.name}`;
}

/** The ownership record, only if it was written for this very object (same uid). */
export function ownershipOf(object: AgentDeploymentView): OwnershipView | undefined {
  const record = object.status?.ownership;
  return record && object.metadata.uid !== undefined && record.uid === object.metadata.uid
    ? record
    : undefined;
}

/**
 * Ids read from the object (the hint annotation, status.ownership) are used only when
 * well-formed: one malformed id in a batched list would fail it for every object, and an id
 * goes into request paths and queries.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isDeploymentId(value: string | undefined): value is string {
  return value !== undefined && UUID.test(value);
}

/** The deployment this object recorded as its own, if any (and well-formed). */
export function ownedDeploymentId(object: AgentDeploymentView): string | undefined {
  const id = ownershipOf(object)?.deploymentId;
  return isDeploymentId(id) ? id : undefined;
}

export function hasFinalizer(object: AgentDeploymentView): boolean {
  return hasKitFinalizer(object, FINALIZER);
}

export function generationOf(object: { metadata: { generation?: number } }): number {
  return object.metadata.generation ?? 0;
}
