// A deletion that cannot go on until something changes elsewhere (its connection is refused or
// not ready, a ConfigMap is missing): it stays in its phase, Stalled with the reason, says so in
// one Warning event per transition (not one per re-check), and is looked at again on the slow
// re-check, never in a tight loop. Nothing is sent to the platform on this path.
import { requeueAfter, type ReconcileResult } from '../../runtime/reconcile/result.js';
import type { PhaseState } from './conditions.js';
import type { DeletionKubePort } from './ports.js';
import type { PortObject } from '../../runtime/reconcile/object-port.js';
import { publishPhase, withPhase, type PhasedObject, type PhasedStatus } from './status.js';

export async function publishBlocked<T extends PhasedObject<S> & PortObject, S extends PhasedStatus>(
  kube: DeletionKubePort<T>,
  object: T,
  state: Omit<PhaseState, 'blocked'>,
  timing: { now: number; recheckMs: number },
  signal: AbortSignal,
): Promise<ReconcileResult> {
  const stalled = object.status?.conditions?.find((condition) => condition.type === 'Stalled');
  const already =
    stalled?.status === 'True' && stalled.reason === state.reason && stalled.message === state.message;
  if (!already) kube.event(object, 'Warning', state.reason, state.message);
  const status = withPhase(object, { ...object.status }, { ...state, blocked: true }, timing.now);
  return (await publishPhase(kube, object, status, signal)) ?? requeueAfter(timing.recheckMs);
}
