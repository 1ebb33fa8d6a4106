// The control plane's tracing projects as sessions of this API: a deployment's project is
// found by `GET /sessions?name=`, holds the traces sent to it, and goes (with its traces) when
// the deployment is deleted with `delete_tracing_project=true`. The control-plane emulator
// plugs this into its store; it has the shape of that store's TracingProjectsPort.
import type { SessionHandlers } from './session-handlers.js';
import type { TraceStore } from './trace-store.js';

export interface TracingProjectSessions {
  ensure(tenantId: string, name: string, now: number): string;
  remove(tenantId: string, projectId: string, now: number): void;
}

export function tracingProjectSessions(
  sessions: SessionHandlers,
  traces: TraceStore,
): TracingProjectSessions {
  return {
    ensure: (tenantId, name, now) => sessions.ensure(tenantId, now, name).id,
    remove: (tenantId, projectId, now) => traces.deleteSession(tenantId, now, projectId),
  };
}
