// Status of a deletion: the phase, its message and conditions set together; written only when
// it changed, as one merge patch.
import type { Condition } from '../../api/agentdeployment/status.js';
import type { DeletionPhase } from '../../api/deletion/index.js';
import { deletionConditions, type PhaseState } from './conditions.js';
import type { DeletionKubePort } from './ports.js';
import type { PortObject } from '../../runtime/reconcile/object-port.js';
import type { ReconcileResult } from '../../runtime/reconcile/result.js';
import { afterFailedWrite, publishStatus } from '../../runtime/reconcile/status-publisher.js';

export interface PhasedStatus {
  observedGeneration?: number;
  phase?: DeletionPhase;
  message?: string;
  conditions?: Condition[];
}

export interface PhasedObject<S> {
  metadata: { generation?: number };
  status?: S;
}

/** `status` moved to the phase of `state`; fields of `extra` set to undefined are removed. */
export function withPhase<S extends PhasedStatus>(
  object: PhasedObject<S>,
  status: S,
  state: PhaseState,
  now: number,
  extra: Partial<Record<keyof S, string | undefined>> = {},
): S {
  const generation = object.metadata.generation ?? 0;
  const next: S = {
    ...status,
    ...extra,
    observedGeneration: generation,
    phase: state.phase,
    message: state.message,
    conditions: deletionConditions(status.conditions, state, generation, new Date(now)),
  };
  for (const [field, value] of Object.entries(extra)) {
    if (value === undefined) delete next[field as keyof S];
  }
  return next;
}

/**
 * Writes the status when it changed. Undefined when the pass may go on (written, unchanged);
 * otherwise what the pass returns: the object is gone, someone wrote first, or the write failed.
 */
export async function publishPhase<T extends PhasedObject<S> & PortObject, S extends object>(
  kube: DeletionKubePort<T>,
  object: T,
  status: S,
  signal: AbortSignal,
): Promise<ReconcileResult | undefined> {
  const published = await publishStatus(kube, object, status as NonNullable<T['status']>, signal);
  return published.kind === 'failed' ? afterFailedWrite(published.outcome) : undefined;
}
