// Where a deployment's tracing project lives. The spec: creating a deployment creates a tracing
// project of the same name; `delete_tracing_project=true` on its DELETE removes it. Served
// together with the platform data API, the project is a real session of that API (found by
// name, holding traces): the embedder passes a port backed by its sessions. Alone, the control
// plane keeps the projects' ids itself (ownProjects).

/** What the control plane asks of whoever holds tracing projects: nothing else crosses over. */
export interface TracingProjectsPort {
  /** The id of the tenant's project of that name, created when there is none. */
  ensure(tenantId: string, name: string, now: number): string;
  /** Removes the project with that id and every trace in it; unknown ids are ignored. */
  remove(tenantId: string, projectId: string, now: number): void;
}

/** The control plane alone: ids only, no traces to hold. */
export function ownProjects(newId: () => string): TracingProjectsPort {
  const ids = new Map<string, string>();
  return {
    ensure(tenantId, name) {
      const key = `${tenantId}/${name}`;
      const existing = ids.get(key);
      if (existing !== undefined) return existing;
      const id = newId();
      ids.set(key, id);
      return id;
    },
    remove(tenantId, projectId) {
      for (const [key, id] of ids) if (id === projectId && key.startsWith(`${tenantId}/`)) ids.delete(key);
    },
  };
}
