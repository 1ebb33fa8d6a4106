// Sessions (tracing projects), their runs, and trace deletion, per tenant. A trace is every run
// sharing one trace_id. A delete request is only scheduled: the simulated weekend job removes the
// traces once `traceDeleteDelayMs` has passed. The job runs lazily, on the next request that
// looks at the store after it is due, so idle schedules cost nothing and a test clock drives it.

export interface SessionRecord {
  id: string;
  name: string;
  tenant_id: string;
  description: string | null;
  extra: Record<string, unknown>;
  start_time: string;
  reference_dataset_id: string | null;
}

export interface RunRecord {
  id: string;
  trace_id: string;
  session_id: string;
  parent_run_id: string | null;
  name: string;
  run_type: string;
  start_time: string;
  end_time: string | null;
  inputs: Record<string, unknown> | null;
  outputs: Record<string, unknown> | null;
  extra: Record<string, unknown>;
  error: string | null;
  dotted_order: string | null;
  tags: string[];
  status: string;
  /** The clock's time when the run was first stored (ms). */
  ingested_at: number;
}

export type TraceDeleteRequest =
  | { form: 'ids'; sessionId: string; traceIds: string[] }
  | { form: 'metadata'; metadata: Record<string, unknown> };

interface ScheduledDeletion {
  dueAt: number;
  requestedAt: number;
  request: TraceDeleteRequest;
}

class Workspace {
  readonly sessions = new Map<string, SessionRecord>();
  readonly sessionsByName = new Map<string, string>();
  readonly runs = new Map<string, RunRecord>();
  readonly runsByTrace = new Map<string, Set<string>>();
  scheduled: ScheduledDeletion[] = [];
  deletedTraces = 0;
}

/** The trace's metadata: the `extra.metadata` of its runs. */
export function runMetadata(run: RunRecord): Record<string, unknown> {
  const metadata = run.extra.metadata;
  return metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata)
    ? (metadata as Record<string, unknown>)
    : {};
}

/** ANY pair: the spec's rule for metadata matching. Values compare as JSON. */
export function hasAnyPair(have: Record<string, unknown>, wanted: Record<string, unknown>): boolean {
  return Object.entries(wanted).some(
    ([key, value]) => key in have && JSON.stringify(have[key]) === JSON.stringify(value),
  );
}

export class TraceStore {
  private readonly workspaces = new Map<string, Workspace>();

  constructor(private readonly traceDeleteDelayMs: number) {}

  reset(): void {
    this.workspaces.clear();
  }

  /** The tenant's workspace after the weekend job has done everything due by `now`. */
  private workspace(tenantId: string, now: number): Workspace {
    let workspace = this.workspaces.get(tenantId);
    if (workspace === undefined) {
      workspace = new Workspace();
      this.workspaces.set(tenantId, workspace);
    }
    if (workspace.scheduled.length > 0 && (workspace.scheduled[0]?.dueAt ?? Infinity) <= now) {
      const due = workspace.scheduled.filter((d) => d.dueAt <= now);
      workspace.scheduled = workspace.scheduled.filter((d) => d.dueAt > now);
      for (const deletion of due) this.runDeletion(workspace, deletion);
    }
    return workspace;
  }

  private runDeletion(workspace: Workspace, deletion: ScheduledDeletion): void {
    const { request } = deletion;
    const traces = new Set<string>();
    if (request.form === 'ids') {
      for (const traceId of request.traceIds) {
        const runIds = workspace.runsByTrace.get(traceId);
        const any = runIds === undefined ? undefined : workspace.runs.get([...runIds][0] ?? '');
        if (any?.session_id === request.sessionId) traces.add(traceId);
      }
    } else {
      // Only traces that existed when the request was made: a later trace is not "requested".
      for (const run of workspace.runs.values()) {
        if (run.ingested_at <= deletion.requestedAt && hasAnyPair(runMetadata(run), request.metadata)) {
          traces.add(run.trace_id);
        }
      }
    }
    for (const traceId of traces) {
      for (const runId of workspace.runsByTrace.get(traceId) ?? []) workspace.runs.delete(runId);
      workspace.runsByTrace.delete(traceId);
      workspace.deletedTraces += 1;
    }
  }

  createSession(tenantId: string, now: number, session: SessionRecord): void {
    const workspace = this.workspace(tenantId, now);
    workspace.sessions.set(session.id, session);
    workspace.sessionsByName.set(session.name, session.id);
  }

  /** Removes the session and every run in it at once (a project deletion, not the weekend job). */
  deleteSession(tenantId: string, now: number, id: string): void {
    const workspace = this.workspace(tenantId, now);
    const session = workspace.sessions.get(id.toLowerCase());
    if (session === undefined) return;
    workspace.sessions.delete(session.id);
    if (workspace.sessionsByName.get(session.name) === session.id)
      workspace.sessionsByName.delete(session.name);
    for (const run of [...workspace.runs.values()]) {
      if (run.session_id !== session.id) continue;
      workspace.runs.delete(run.id);
      const ids = workspace.runsByTrace.get(run.trace_id);
      ids?.delete(run.id);
      if (ids?.size === 0) workspace.runsByTrace.delete(run.trace_id);
    }
  }

  sessionById(tenantId: string, now: number, id: string): SessionRecord | undefined {
    return this.workspace(tenantId, now).sessions.get(id.toLowerCase());
  }

  sessionByName(tenantId: string, now: number, name: string): SessionRecord | undefined {
    const workspace = this.workspace(tenantId, now);
    const id = workspace.sessionsByName.get(name);
    return id === undefined ? undefined : workspace.sessions.get(id);
  }

  sessions(tenantId: string, now: number): SessionRecord[] {
    return [...this.workspace(tenantId, now).sessions.values()];
  }

  run(tenantId: string, now: number, id: string): RunRecord | undefined {
    return this.workspace(tenantId, now).runs.get(id.toLowerCase());
  }

  putRun(tenantId: string, now: number, run: RunRecord): void {
    const workspace = this.workspace(tenantId, now);
    workspace.runs.set(run.id, run);
    let ids = workspace.runsByTrace.get(run.trace_id);
    if (ids === undefined) {
      ids = new Set();
      workspace.runsByTrace.set(run.trace_id, ids);
    }
    ids.add(run.id);
  }

  runs(tenantId: string, now: number): IterableIterator<RunRecord> {
    return this.workspace(tenantId, now).runs.values();
  }

  scheduleDeletion(tenantId: string, now: number, request: TraceDeleteRequest): void {
    const workspace = this.workspace(tenantId, now);
    workspace.scheduled.push({ dueAt: now + this.traceDeleteDelayMs, requestedAt: now, request });
  }

  /** For the admin API: what is waiting for the weekend job, and what it has removed. */
  deletionStats(tenantId: string, now: number): { scheduledRequests: number; deletedTraces: number } {
    const workspace = this.workspace(tenantId, now);
    return { scheduledRequests: workspace.scheduled.length, deletedTraces: workspace.deletedTraces };
  }
}
