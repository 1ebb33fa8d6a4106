// One row of the demo's table, read from an AgentDeployment's status.
import type { Manifest } from './manifests.js';

export interface DemoRow {
  name: string;
  /** The connection it deploys through: its connectionRef's name, or `default`. */
  connection: string;
  source: string;
  revisionStatus: string;
  activeRevision: string;
  ready: string;
  reason: string;
  message: string;
  /** Ready=True for the current generation. */
  settled: boolean;
  stalled: boolean;
  /**
   * False for a status caught between two of the operator's writes, such as a revision
   * already DEPLOYED but not yet recorded as the active one: the demo keeps showing the
   * previous row rather than a picture that contradicts itself.
   */
  consistent: boolean;
}

interface StatusShape {
  observedGeneration?: number;
  latestRevisionId?: string | null;
  latestRevisionStatus?: string | null;
  activeRevisionId?: string | null;
  conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
}

export function rowOf(object: Manifest): DemoRow {
  const status = (object.status ?? {}) as StatusShape;
  const spec = (object.spec ?? {}) as { source?: string; connectionRef?: { name?: string } };
  const ready = status.conditions?.find((c) => c.type === 'Ready');
  const stalled = status.conditions?.find((c) => c.type === 'Stalled')?.status === 'True';
  const current = status.observedGeneration === object.metadata.generation;
  return {
    name: object.metadata.name,
    connection: spec.connectionRef?.name ?? 'default',
    source: spec.source ?? '?',
    revisionStatus: status.latestRevisionStatus ?? '-',
    activeRevision: status.activeRevisionId ? status.activeRevisionId.slice(0, 8) : '-',
    ready: ready?.status ?? 'Unknown',
    reason: ready?.reason ?? 'Pending',
    message: ready?.message ?? 'waiting for the operator',
    settled: ready?.status === 'True' && current,
    stalled,
    consistent:
      (status.latestRevisionStatus !== 'DEPLOYED' || status.activeRevisionId === status.latestRevisionId) &&
      (ready?.status !== 'True' || status.latestRevisionStatus === 'DEPLOYED'),
  };
}

/** What a plain log line reports; a change of any of these is worth a line. */
export function rowSignature(row: DemoRow): string {
  return [row.revisionStatus, row.activeRevision, row.ready, row.reason].join('|');
}
