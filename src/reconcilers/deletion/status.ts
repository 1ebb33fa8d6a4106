// Status of a deletion: the phase, its message and conditions set together; written only when
// it changed, as one merge patch.
import type { Condition } from '../../api/agentdeployment/status.js';
import type { DeletionPhase } from '../../api/deletion/index.js';
import { deletionConditions, type PhaseState } from './conditions.js';
import type { DeletionKubePort } from './ports.js';

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

/** Writes the status when it changed; an Error (for backoff) when the write failed. A gone object is no error. */
export async function publishStatus<T extends PhasedObject<S>, S>(
  kube: DeletionKubePort<T, S>,
  object: T,
  status: S,
  signal: AbortSignal,
): Promise<Error | undefined> {
  if (JSON.stringify(status) === JSON.stringify(object.status)) return undefined;
  const written = await kube.patchStatus(object, status, signal);
  if (written.ok || written.gone) return undefined;
  return new Error(`status write failed: ${written.message}`);
}
