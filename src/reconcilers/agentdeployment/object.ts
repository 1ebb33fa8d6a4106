// The parts of an AgentDeployment the reconciler reads and writes, and the names it owns on
// the object (annotations, finalizer). Annotations hold what must survive the loss of
// status: the id of the external deployment and the intent to create one.
import { ANNOTATIONS, FINALIZER, type SecretReference } from '../../api/agentdeployment/index.js';
import type { Condition } from './conditions.js';

export { FINALIZER };
/** The id of the control-plane deployment this object manages (like Crossplane's external-name). */
export const DEPLOYMENT_ID_ANNOTATION = ANNOTATIONS.deploymentId;
/** Set before a POST and cleared once its id is recorded: "a create may be in flight". */
export const CREATE_PENDING_ANNOTATION = ANNOTATIONS.createPending;

/** The spec fields that steer the reconciler itself (the rest goes to the wire mapping). */
export interface ReconcilerSpecView {
  name?: string;
  secrets?: SecretReference[];
  deletionPolicy?: 'Delete' | 'Orphan';
  suspend?: boolean;
  adoptExisting?: boolean;
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
  lastSyncTime?: string;
  secretVersions?: Record<string, string>;
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

export function deploymentIdOf(object: AgentDeploymentView): string | undefined {
  return object.metadata.annotations?.[DEPLOYMENT_ID_ANNOTATION] ?? object.status?.deploymentId ?? undefined;
}

export function hasFinalizer(object: AgentDeploymentView): boolean {
  return object.metadata.finalizers?.includes(FINALIZER) ?? false;
}

export function isCreatePending(object: AgentDeploymentView): boolean {
  return object.metadata.annotations?.[CREATE_PENDING_ANNOTATION] !== undefined;
}

export function generationOf(object: AgentDeploymentView): number {
  return object.metadata.generation ?? 0;
}
