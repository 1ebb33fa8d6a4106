// What the reconciler needs from the world, as narrow interfaces. The operator wires them
// to the control-plane client and the controller runtime; tests can wire them to fakes.
// Keeping them narrow is what keeps the reconciler free of transport details.
import type {
  Deployment,
  DeploymentCreateRequest,
  DeploymentPatchRequest,
  Revision,
} from '../../controlplane/models/index.js';
import type { AgentDeploymentStatusView } from './object.js';
import type { SecretSource } from './secrets.js';

export type ControlPlaneErrorKind = 'Transient' | 'Throttled' | 'Terminal' | 'NotFound' | 'Conflict';

export interface ControlPlaneFailure {
  kind: ControlPlaneErrorKind;
  /** Safe to log and to show in status: no key, no secret value, no request body. */
  message: string;
  /** Throttled: when the budget allows the next attempt. */
  retryAfterMs?: number;
  /** Terminal: the HTTP status and the server's words. */
  status?: number;
  detail?: string;
  /** Transient: the request may have reached the server (timeout or reset after sending). */
  unclear?: boolean;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ControlPlaneFailure };

export interface ControlPlanePort {
  createDeployment(request: DeploymentCreateRequest): Promise<Outcome<Deployment>>;
  getDeployment(id: string): Promise<Outcome<Deployment>>;
  /** The deployments among `ids` (at most 100) that exist; absent ids are not returned. */
  listDeploymentsByIds(ids: readonly string[]): Promise<Outcome<Deployment[]>>;
  /** Every deployment whose name is exactly `name` (the API filters by substring). */
  findDeploymentsByName(name: string): Promise<Outcome<Deployment[]>>;
  patchDeployment(id: string, patch: DeploymentPatchRequest): Promise<Outcome<Deployment>>;
  deleteDeployment(id: string): Promise<Outcome<void>>;
  getRevision(deploymentId: string, revisionId: string): Promise<Outcome<Revision>>;
  /** Requests per second the budget allows, to pace optional polling. */
  allowedRatePerSecond(): number;
  /** Share of the budget available right now (0..1): optional calls are made only from spare budget. */
  budgetHeadroom(): number;
}

/** The Kubernetes side, as the reconciler sees it: reads from caches, writes to the API. */
export interface KubePort<Object> {
  /** The object as last seen (the cache, overlaid with this process's own newer writes). */
  getObject(key: string): Object | undefined;
  getSecret(namespace: string, name: string): SecretSource | undefined;
  /** Merge patch of metadata; `null` removes an annotation. Guarded by resourceVersion when finalizers change. */
  patchMetadata(
    object: Object,
    patch: { annotations?: Record<string, string | null>; finalizers?: string[] },
  ): Promise<Object>;
  patchStatus(object: Object, status: AgentDeploymentStatusView): Promise<Object>;
  event(object: Object, type: 'Normal' | 'Warning', reason: string, message: string): void;
}
