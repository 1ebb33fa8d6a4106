// What `decide` asks the shell to do: read one more thing, make one write, or publish a
// status and say when to look again. At most one control-plane mutation per action.
import type {
  Deployment,
  DeploymentCreateRequest,
  DeploymentPatchRequest,
} from '../../controlplane/models/index.js';
import type { SmokeTestExpectation } from '../../api/agentdeployment/index.js';
import type { RefusedReason } from './observed.js';
import type { AgentCallCredential, Failure } from './ports.js';
import type { StatusFacts } from './status.js';
import type { SyncState } from './sync-state.js';
import type { HeaderRef } from './smoke-test-headers.js';
import type { ExportStep } from './export.js';

/** 'follow': settled, but it builds on push, so it is listed every few seconds (push-following.ts). */
export type Tracking = { id: string; mode: 'inflight' | 'steady' | 'follow' | 'want' };

export interface EventSpec {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export type Action =
  | { kind: 'observeDeployment'; id: string; maxAgeMs: number }
  | { kind: 'observeName'; name: string }
  | { kind: 'observeRevision'; deploymentId: string; revisionId: string }
  | { kind: 'addFinalizer' }
  /** Record the intent in status (guarded), POST, record the id. */
  | { kind: 'create'; request: DeploymentCreateRequest; facts: StatusFacts; specKey: string }
  | {
      kind: 'adopt';
      deployment: Deployment;
      reason: 'Adopted' | 'CreateRecovered';
      /**
       * What the owned object publishes next, when that is only status (adoption.ts): written
       * with the ownership record, in one write. Absent: ownership alone, and look again.
       */
      then?: PublishAction;
    }
  | {
      kind: 'patch';
      deployment: Deployment;
      patch: DeploymentPatchRequest;
      changedFields: string[];
      createsRevision: boolean;
      /** The spec did not change: someone changed the deployment outside the operator. */
      drift: boolean;
      facts: StatusFacts;
      specKey: string;
      /** Warning events: what the spec asks that the API cannot express. */
      warnings: string[];
    }
  /**
   * Set the owned deployment back to what an older revision ran (rollback.ts): record the
   * rollback in status first (`state`, `facts`), then PATCH, then follow the new revision.
   */
  | {
      kind: 'rollback';
      deployment: Deployment;
      patch: DeploymentPatchRequest;
      state: SyncState;
      facts: StatusFacts;
      /** The Warning event the PATCH is announced with. */
      event: EventSpec;
    }
  /** The owned deployment is gone: forget it (the next pass creates it again). */
  | { kind: 'forget'; id: string }
  | { kind: 'delete'; id: string; deleteTracingProject?: boolean }
  /** Remove the finalizer; `orphaned`: first record that this object's namespace left that deployment behind. */
  | { kind: 'release'; event?: EventSpec; orphaned?: string }
  | PublishAction
  /**
   * Call the deployed agent (spec.smokeTest) in the background with its own deadline, after
   * publishing `state`; the outcome comes back as Observed.smokeTestAttempts and wakes the key.
   */
  | {
      kind: 'smokeTest';
      testKey: string;
      url: string;
      /** The key the call carries: chosen here, from the control plane's facts and the connection's trust. */
      credential: AgentCallCredential;
      /** spec.smokeTest.headers, by reference: values are read at call time, never held here. */
      headers?: readonly HeaderRef[];
      input: Record<string, unknown>;
      timeoutMs: number;
      expect?: SmokeTestExpectation;
      state: SyncState;
      facts: StatusFacts;
      /** The deployment, followed at the steady pace meanwhile. */
      deploymentId: string;
      /** 'follow' when it builds on push (absent: 'steady'). */
      settledMode?: 'steady' | 'follow';
    }
  /** spec.export: one write of the exported ConfigMap and/or its condition (export.ts), then look again. */
  | ({ kind: 'export' } & ExportStep)
  /** Nothing to write: look again after this long (or when the poller wakes the key). */
  | { kind: 'wait'; requeueAfterMs: number }
  /** A failure observed on the way: errorPolicy decides. */
  | { kind: 'fail'; error: Failure }
  | { kind: 'nothing' };

export type PublishAction = { kind: 'publish'; state: SyncState; facts: StatusFacts } & PublishOptions;

export interface PublishOptions {
  requeueAfterMs?: number;
  /** How the batched poller should follow the deployment from now on. */
  track?: Tracking;
  /** The control plane refused this spec: remember it, so that it is not sent again in a loop. */
  refused?: { specKey: string; reason: RefusedReason };
  /** Warning events to emit if the status changes (they describe this spec, once). */
  warnings?: string[];
  /** Events to emit if the status changes (a refused rollback-to annotation, an impossible rollback). */
  events?: EventSpec[];
}
