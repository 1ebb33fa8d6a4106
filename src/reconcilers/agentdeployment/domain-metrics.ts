// The operator's own measures of what users care about: how long a change takes to be
// deployed, and how revisions end. Bound to prom-client in the operator's wiring.
export interface DomainMetrics {
  /** A revision reached a terminal state; `rolloutSeconds` when this process saw it start. */
  revisionFinished(state: string, rolloutSeconds: number | undefined): void;
}
