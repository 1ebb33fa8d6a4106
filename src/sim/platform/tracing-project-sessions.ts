// The control plane's tracing projects as sessions of this API: a deployment's project is
// found by `GET /sessions?name=`, holds the traces sent to it (and one per run of the agent,
// as the hosted runtime traces its runs), and goes (with its traces) when the deployment is
// deleted with `delete_tracing_project=true`. The control-plane emulator plugs this into its
// store; it has the shape of that store's TracingProjectsPort.
import type { SessionHandlers } from './session-handlers.js';
import type { TraceStore } from './trace-store.js';

/** One finished agent run, traced as a root run whose id is the trace id. */
export interface ProjectTrace {
  runId: string;
  startedAt: number;
  endedAt: number;
  status: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
  error: string | null;
  metadata: Record<string, unknown>;
}

export interface TracingProjectSessions {
  ensure(tenantId: string, name: string, now: number): string;
  remove(tenantId: string, projectId: string, now: number): void;
  /** Stores the trace in the tenant's project of that name. */
  record(tenantId: string, name: string, trace: ProjectTrace, now: number): void;
}

/** The SDK's dotted order of a root run: its start time (µs, UTC) followed by its id. */
function dottedOrder(startedAt: number, id: string): string {
  const iso = new Date(startedAt).toISOString(); // 2026-11-26T08:47:26.123Z
  return `${iso.replace(/[-:]/g, '').replace('.', '').replace('Z', '000Z')}${id}`;
}

export function tracingProjectSessions(
  sessions: SessionHandlers,
  traces: TraceStore,
): TracingProjectSessions {
  return {
    ensure: (tenantId, name, now) => sessions.ensure(tenantId, now, name).id,
    remove: (tenantId, projectId, now) => traces.deleteSession(tenantId, now, projectId),
    record: (tenantId, name, trace, now) => {
      const session = sessions.ensure(tenantId, now, name);
      traces.putRun(tenantId, now, {
        id: trace.runId,
        trace_id: trace.runId,
        session_id: session.id,
        parent_run_id: null,
        name: 'agent',
        run_type: 'chain',
        start_time: new Date(trace.startedAt).toISOString(),
        end_time: new Date(trace.endedAt).toISOString(),
        inputs: trace.inputs,
        outputs: trace.outputs,
        extra: { metadata: trace.metadata },
        error: trace.error,
        dotted_order: dottedOrder(trace.startedAt, trace.runId),
        tags: [],
        status: trace.status,
        ingested_at: now,
      });
    },
  };
}
