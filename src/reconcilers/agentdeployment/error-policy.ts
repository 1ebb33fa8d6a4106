// The one place that says what a failure means. Every port returns failures as values; the
// shell hands each to `errorPolicy` and does what it says. The `label` is the metric label
// (agent_operator_reconcile_failures_total{class}); the state is what status shows.
//
//   class          then                    status (only if not Ready at this generation)
//   Throttled      requeue after the wait  Throttled
//   Transient      back off (per key)      ControlPlaneUnavailable
//   Unauthorized   back off (per key)      ControlPlaneUnavailable, "refuses the API key"
//   Conflict       requeue now             (unchanged: someone wrote first; re-read)
//   NotFound       requeue now             (unchanged: the next observation shows it gone)
//   Terminal       stall                   Rejected, with the server's reason
//
// A failed write is first shown to decideFailedWrite (failed-write.ts), which gives three
// failures their own meaning: a refused create (a name lookup tells NameConflict from
// Rejected), a refused PATCH (Rejected, remembered) and a 404 on PATCH or DELETE.
//
// A failed smoke-test call is not a Failure of the control plane: the agent may be warming
// up. It is retried after smokeTestRetryDelayMs (doubling, capped) while its budget lasts.
import type { Failure, FailureKind } from './ports.js';
import type { SyncState } from './sync-state.js';

export type Then =
  | { kind: 'requeueAfter'; ms: number }
  /** The work queue's per-key backoff: exponential with jitter, capped, reset on success. */
  | { kind: 'backoff' }
  | { kind: 'requeueNow' }
  /** No retry until the spec changes (or the slow re-check is due). */
  | { kind: 'stall' };

export interface PolicyDecision {
  label: FailureKind;
  then: Then;
  /** The condition to show; undefined leaves status as it is. */
  state?: SyncState;
}

const MIN_THROTTLE_WAIT_MS = 50;

export function errorPolicy(error: Failure): PolicyDecision {
  switch (error.kind) {
    case 'Throttled':
      return {
        label: 'Throttled',
        then: { kind: 'requeueAfter', ms: Math.max(error.retryAfterMs ?? 1_000, MIN_THROTTLE_WAIT_MS) },
        state: {
          kind: 'Throttled',
          message: `Waiting for the control plane's rate budget: ${error.message}`,
        },
      };
    case 'Transient':
      return {
        label: 'Transient',
        then: { kind: 'backoff' },
        state: {
          kind: 'ControlPlaneUnavailable',
          message: `The control plane is unreachable: ${error.message}`,
        },
      };
    case 'Unauthorized':
      // A property of the credential, not of the object: back off and recover by itself
      // once the key is fixed; never Stalled.
      return {
        label: 'Unauthorized',
        then: { kind: 'backoff' },
        state: {
          kind: 'ControlPlaneUnavailable',
          message: `The control plane refuses the API key (HTTP ${error.status ?? 401}); check the operator's credential: ${error.message}`,
        },
      };
    case 'Conflict':
      return { label: 'Conflict', then: { kind: 'requeueNow' } };
    case 'NotFound':
      return { label: 'NotFound', then: { kind: 'requeueNow' } };
    case 'Terminal':
      return {
        label: 'Terminal',
        then: { kind: 'stall' },
        state: { kind: 'Rejected', message: `The control plane rejected the request: ${error.message}` },
      };
  }
}

/** Pause before the next smoke-test call after `failedAttempts` failed ones: doubling from `firstMs`, capped at `maxMs`. */
export function smokeTestRetryDelayMs(failedAttempts: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.min(Math.max(failedAttempts - 1, 0), 20));
}
