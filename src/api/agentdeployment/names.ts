// The names under which the AgentDeployment resource is served, and the keys the operator
// writes on objects. They are part of the contract with users (kubectl, RBAC, Helm) and with
// the other parts of this project, so they live in one place.

export const GROUP = 'agentplatform.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = 'AgentDeployment';
export const LIST_KIND = 'AgentDeploymentList';
export const PLURAL = 'agentdeployments';
export const SINGULAR = 'agentdeployment';
export const SHORT_NAMES = ['agd'] as const;
export const CATEGORIES = ['agents'] as const;
/** `<plural>.<group>`, the name of the CustomResourceDefinition object itself. */
export const CRD_NAME = `${PLURAL}.${GROUP}`;

/** Blocks deletion until the operator has applied the deletion policy. */
export const FINALIZER = `${GROUP}/finalizer`;

/**
 * Annotations the operator reads. Ownership is recorded in status (which tenants cannot
 * write), never here: an annotation anyone who can edit the object may set is only a hint.
 */
export const ANNOTATIONS = {
  /** A hint of the deployment id (status lost, or an older operator): verified before use. */
  deploymentId: `${GROUP}/deployment-id`,
  /** Any new value rolls out one new revision without a spec change (`kubectl rollout restart`). */
  redeployAt: `${GROUP}/redeploy-at`,
  /** Any new value makes the operator look at the control plane now, without a new revision. */
  reconcileRequestedAt: `${GROUP}/reconcile-requested-at`,
  /** A revision id from status.revisionHistory: set the deployment back to what that revision ran. */
  rollbackTo: `${GROUP}/rollback-to`,
} as const;
