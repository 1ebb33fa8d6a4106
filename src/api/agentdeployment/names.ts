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
 * Annotations the operator writes. They survive the loss of status (a restore from backup,
 * a status wipe), which is why the crash-safety protocol records its intent here.
 */
export const ANNOTATIONS = {
  /** The control-plane id of the deployment this object created or adopted. */
  deploymentId: `${GROUP}/deployment-id`,
  /** RFC 3339 time; set before the create POST and cleared once its outcome is known. */
  createPending: `${GROUP}/create-pending`,
} as const;
