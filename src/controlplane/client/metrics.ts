// What the client reports about its calls. An interface, so that the client does not depend
// on a metrics library; src/observability/controlplane-metrics.ts binds it to prom-client.

export interface RequestDoneEvent {
  /** Route template, e.g. /v2/deployments/{deployment_id}: never an id. */
  route: string;
  method: string;
  /** The HTTP status, or 'timeout' | 'reset' | 'connect' | 'aborted' | 'other' when none came. */
  code: string;
  seconds: number;
}

export interface ClientMetrics {
  requestDone(event: RequestDoneEvent): void;
  budgetWaited(seconds: number): void;
  throttled(event: { route: string }): void;
  retried(event: { route: string; reason: string }): void;
}

export const noopClientMetrics: ClientMetrics = {
  requestDone: () => undefined,
  budgetWaited: () => undefined,
  throttled: () => undefined,
  retried: () => undefined,
};
