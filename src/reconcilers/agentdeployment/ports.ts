// What the reconciler needs from the world, as narrow interfaces. The operator wires them
// to the control-plane client and the controller runtime; tests can wire them to fakes.
// Every call takes the reconcile's AbortSignal: losing the lease or shutting down aborts the
// request in flight, so that a former leader writes nothing after another replica leads.
// Failures are values (`Outcome`), never thrown: errorPolicy decides what each one means.
import type {
  Deployment,
  DeploymentCreateRequest,
  DeploymentPatchRequest,
  Revision,
} from '../../controlplane/models/index.js';
import type { AgentCallResult } from '../../agentruntime/errors.js';
import type { AgentTrust } from '../../egress/agent-credential.js';
import type { WaitOutcome } from '../../agentruntime/client.js';
import type { ConnectionRefusalReason } from '../../connections/reference.js';
import type { ObjectPort, PortObject } from '../../runtime/reconcile/object-port.js';
import type { FleetPoller } from './observation/fleet-poller.js';
import type { ObservationCache } from './observation/observation-cache.js';
import type { SecretSource } from './secrets.js';
import type { HeaderRef } from './smoke-test-headers.js';

export type { ConnectionRefusalReason };

export type FailureKind =
  /** 5xx, timeouts, resets: back off. */
  | 'Transient'
  /** The rate budget (ours or the server's 429): wait as long as it says. */
  | 'Throttled'
  /** 401/403: the credential is refused. A property of the key, not of the object. */
  | 'Unauthorized'
  /** 400/422: the request itself is wrong; only a change of the spec can help. */
  | 'Terminal'
  | 'NotFound'
  /** 409: someone else wrote first; re-read and retry at once. */
  | 'Conflict';

export interface Failure {
  kind: FailureKind;
  /** Safe to log and to show in status: no key, no secret value, no request body. */
  message: string;
  /** Throttled: when the budget allows the next attempt. */
  retryAfterMs?: number;
  /** The HTTP status, when there was one. */
  status?: number;
  /** Transient: the request may have reached the server (timeout or reset after sending). */
  unclear?: boolean;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: Failure };

/** The budget token of one create, taken before its intent is written (see reserveCreate). */
export interface CreateToken {
  readonly kind: 'CreateToken';
}

export interface ControlPlanePort {
  /**
   * Takes a create's budget token before its intent is written, waiting in place a short while
   * when the budget is only just empty; Throttled (with the create's place in the budget's line)
   * when it cannot be had soon. So a create the budget refuses costs no Kubernetes write, and a
   * written intent is followed by its POST. `key` is the object's: throttled creates take
   * places in the line by namespace.
   */
  reserveCreate(key: string, signal: AbortSignal): Promise<Outcome<CreateToken>>;
  /** With `token`, the POST spends the token reserveCreate took rather than one more. */
  createDeployment(
    request: DeploymentCreateRequest,
    signal: AbortSignal,
    token?: CreateToken,
  ): Promise<Outcome<Deployment>>;
  getDeployment(id: string, signal: AbortSignal): Promise<Outcome<Deployment>>;
  /** The deployments among `ids` (at most 100) that exist; absent ids are not returned. */
  listDeploymentsByIds(ids: readonly string[], signal: AbortSignal): Promise<Outcome<Deployment[]>>;
  /** Every deployment whose name is exactly `name` (the API filters by substring). */
  findDeploymentsByName(name: string, signal: AbortSignal): Promise<Outcome<Deployment[]>>;
  patchDeployment(
    id: string,
    patch: DeploymentPatchRequest,
    signal: AbortSignal,
  ): Promise<Outcome<Deployment>>;
  deleteDeployment(
    id: string,
    signal: AbortSignal,
    options?: { deleteTracingProject?: boolean },
  ): Promise<Outcome<void>>;
  getRevision(deploymentId: string, revisionId: string, signal: AbortSignal): Promise<Outcome<Revision>>;
  /** Requests per second the budget allows, to pace optional polling. */
  allowedRatePerSecond(): number;
  /** Share of the budget available right now (0..1): optional calls are made only from spare budget. */
  budgetHeadroom(): number;
}

/** Who orphaned which deployment (the operator's own record, in its own namespace). */
export interface OrphanRecordsPort {
  /** The ids of the deployments objects of `namespace` orphaned. */
  orphanedBy(namespace: string): readonly string[];
  record(
    deploymentId: string,
    record: { namespace: string; name: string; orphanedAt: string },
    signal: AbortSignal,
  ): Promise<Outcome<void>>;
  forget(deploymentId: string, signal: AbortSignal): Promise<Outcome<void>>;
}

/** Which key a call to an agent carries (decided by `decide`, never by the URL's author). */
export type AgentCallCredential =
  /** The object's connection's key. `tenantChosen`: the address was a tenant's choice (address policy applies). */
  | { kind: 'connection'; tenantChosen: boolean }
  /** spec.smokeTest.apiKeySecretRef: a key of the object's own namespace. */
  | { kind: 'own'; secretName: string; secretKey: string };

export interface AgentCall {
  url: string;
  credential: AgentCallCredential;
  /** spec.smokeTest.headers: where each value lives; the port reads them at call time. */
  headers?: readonly HeaderRef[];
  input: Record<string, unknown>;
  timeoutMs: number;
}

/**
 * Calls to deployed agents (spec.smokeTest), with the key `decide` chose and X-Auth-Scheme:
 * platform-api-key. Failures are values whose messages never carry a key.
 */
export interface AgentCallPort {
  /** A stateless run (POST /runs/wait) with its own deadline; `signal` ends it at shutdown. */
  runOnce(objectKey: string, call: AgentCall, signal: AbortSignal): Promise<AgentCallResult<WaitOutcome>>;
  /** Removes the keys this object's calls use (in any encoding) from text about to be quoted: a reply may echo anything. */
  redact(objectKey: string, text: string): string;
  /** The call's outcome is quoted: drop what the port held for it (a tenant's own key). */
  release?(objectKey: string): void;
}

/**
 * Everything an object's calls go through: one per control plane the operator talks to
 * (credential, address and tenant), each with its own budget-paced port, observation cache
 * and batched poller, so that a saturated key never slows the objects of another.
 */
export interface ControlPlaneLane {
  /** Identity of the control plane: names are unique per lane, not across lanes. */
  id: string;
  controlPlane: ControlPlanePort;
  observations: ObservationCache;
  poller: FleetPoller;
  /** Resolves listener and integration names on this control plane (cached); absent: names are not supported. */
  names?: NameCatalogPort;
}

/** An id named by name in the spec: found, unknown (the message lists the names that exist), or the read failed. */
export type NameLookup =
  { ok: true; id: string } | { ok: false; unknown: string } | { ok: false; error: Failure };

export interface NameCatalogPort {
  listenerId(name: string, signal: AbortSignal): Promise<NameLookup>;
  integrationId(name: string, signal: AbortSignal): Promise<NameLookup>;
}

/** The ids that spec.sourceConfig.listenerRef and integrationRef resolved to. */
export interface ResolvedIds {
  listenerId?: string;
  integrationId?: string;
}

/**
 * The lane of an object's connection (spec.connectionRef), or why it cannot have one. With
 * it: where that connection's key may be sent besides its own APIs, and how messages name it.
 */
export type LaneResolution =
  | { ok: true; lane: ControlPlaneLane; agentTrust?: AgentTrust; label?: string }
  | { ok: false; reason: ConnectionRefusalReason; message: string };

/** Which other objects of the fleet (the operator's cache) lay claim to a name or an id. */
export interface FleetPort {
  /**
   * The objects whose spec resolves to the control-plane name `name` on the lane `laneId`,
   * other than the one at `asking` (the key of the object whose pass asks).
   */
  claimantsOf(name: string, laneId: string, asking: string): FleetClaimant[];
  /** The key of the object that recorded `deploymentId` as its own, if any. */
  ownerOf(deploymentId: string): string | undefined;
}

export interface FleetClaimant {
  key: string;
  uid: string;
  creationTimestamp: string;
  /** The deployment this claimant recorded as its own (status.ownership, same uid). */
  ownedDeploymentId?: string;
}

/**
 * The Kubernetes side, as the reconciler sees it: the kit's object port (the cache with this
 * process's own writes overlaid, guarded finalizer and status patches, events) and the
 * values of the Secrets and ConfigMaps the spec references.
 */
export interface KubePort<Object extends PortObject> extends ObjectPort<Object> {
  getSecret(namespace: string, name: string): SecretSource | undefined;
  /**
   * Brings the values of these Secrets of `namespace` up to date before a pass reads them
   * with getSecret (values are read on demand, never cached for unreferenced Secrets).
   * Optional: a port whose getSecret is always current needs none.
   */
  loadSecrets?(namespace: string, names: readonly string[], signal: AbortSignal): Promise<Outcome<void>>;
  /**
   * A ConfigMap's data (as `stringData`) and binaryData (as `data`), for valueFrom.configMapKeyRef.
   * Optional: a port without it resolves no ConfigMap (each reference reads as not found).
   */
  getConfigMap?(namespace: string, name: string): SecretSource | undefined;
  /** As loadSecrets, for the referenced ConfigMaps. */
  loadConfigMaps?(namespace: string, names: readonly string[], signal: AbortSignal): Promise<Outcome<void>>;
}
