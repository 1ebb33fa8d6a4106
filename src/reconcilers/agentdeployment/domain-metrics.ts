// The operator's own measures of what users care about: how long a change takes to be
// deployed, how revisions end, and why reconciles fail. Bound to prom-client in the wiring.
export interface DomainMetrics {
  /** A revision reached a terminal state; `rolloutSeconds` when this process saw it start. */
  revisionFinished(state: string, rolloutSeconds: number | undefined): void;
  /** A reconcile failed; `errorClass` is errorPolicy's label (Transient, Unauthorized, ...). */
  reconcileFailed?(errorClass: string): void;
  /** One smoke-test call ended: `result` is passed, failed (the verdict) or retry (it will be tried again). */
  smokeTestCalled?(result: 'passed' | 'failed' | 'retry', seconds: number): void;
}
