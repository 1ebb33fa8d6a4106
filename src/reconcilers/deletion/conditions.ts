// The kstatus conditions of a deletion, derived from its phase: Ready when Completed,
// Stalled when Failed or blocked, Reconciling while anything is still to happen.
// lastTransitionTime moves only when a condition's status flips.
import type { Condition } from '../../api/agentdeployment/status.js';
import type { DeletionPhase } from '../../api/deletion/index.js';

export interface PhaseState {
  phase: DeletionPhase;
  reason: string;
  message: string;
  /** Cannot proceed without a change elsewhere (a connection, a ConfigMap). */
  blocked?: boolean;
}

export function deletionConditions(
  previous: readonly Condition[] | undefined,
  state: PhaseState,
  generation: number,
  now: Date,
): Condition[] {
  const finished = state.phase === 'Completed' || state.phase === 'Failed';
  const stalled = state.phase === 'Failed' || state.blocked === true;
  const wanted: Array<Pick<Condition, 'type' | 'status'>> = [
    { type: 'Ready', status: state.phase === 'Completed' ? 'True' : 'False' },
    { type: 'Reconciling', status: finished || stalled ? 'False' : 'True' },
    { type: 'Stalled', status: stalled ? 'True' : 'False' },
  ];
  return wanted.map(({ type, status }) => {
    const existing = previous?.find((condition) => condition.type === type);
    return {
      type,
      status,
      reason: state.reason,
      message: state.message,
      observedGeneration: generation,
      lastTransitionTime:
        existing !== undefined && existing.status === status
          ? existing.lastTransitionTime
          : now.toISOString(),
    };
  });
}
