// The guards of a deletion, once it is known how much it would touch (the ids it names, or the
// matches counted on the platform): past spec.maxMatches it is refused and nothing is sent; a
// dry run reports the count and ends (Failed at the same bound, as the real deletion would).
// The outcome is written like any other terminal status: phase, conditions, one event.
import { COUNT_CEILING } from '../../api/deletion/index.js';
import type { PhaseState } from './conditions.js';
import type { PortObject } from '../../runtime/reconcile/object-port.js';
import { awaitChange, type ReconcileResult } from '../../runtime/reconcile/result.js';
import type { DeletionKubePort } from './ports.js';
import { publishPhase, withPhase, type PhasedObject, type PhasedStatus } from './status.js';

export interface Guards {
  dryRun?: boolean;
  maxMatches?: number;
}

/** How many, and whether counting stopped at its bound (then at least that many match). */
export interface Matches {
  count: number;
  atLeast: boolean;
}

/** How far to count: one past maxMatches, enough to know it is exceeded; else the ceiling. */
export function countBound(guards: Guards): number {
  return guards.maxMatches === undefined ? COUNT_CEILING : guards.maxMatches + 1;
}

/** A count that stopped at `bound` may have stopped short of the end. */
export function matchesCounted(count: number, bound: number): Matches {
  return { count, atLeast: count >= bound };
}

/**
 * Past spec.maxMatches: the state that ends the deletion before anything is sent, or undefined.
 * `subject` says what was counted, after the number: 'trace(s) match the metadata'.
 */
export function tooManyMatches(guards: Guards, matches: Matches, subject: string): PhaseState | undefined {
  if (guards.maxMatches === undefined || matches.count <= guards.maxMatches) return undefined;
  return {
    phase: 'Failed',
    reason: 'TooManyMatches',
    message: `spec.maxMatches: ${counted(matches, subject)}, more than the limit of ${guards.maxMatches}; nothing was deleted`,
  };
}

/** How a dry run ends: refused as the deletion would be, else Completed with its count. */
export function dryRunOutcome(guards: Guards, matches: Matches, subject: string): PhaseState {
  const refused = tooManyMatches(guards, matches, subject);
  if (refused !== undefined) return refused;
  const stopped =
    matches.atLeast && guards.maxMatches === undefined
      ? ` (counting stops at ${COUNT_CEILING} without spec.maxMatches)`
      : '';
  return {
    phase: 'Completed',
    reason: 'DryRun',
    message: `dry run, nothing deleted: ${counted(matches, subject)}${stopped}`,
  };
}

function counted(matches: Matches, subject: string): string {
  return `${matches.atLeast ? 'at least ' : ''}${matches.count} ${subject}`;
}

interface CountedStatus extends PhasedStatus {
  matched?: number;
  matchedIsLowerBound?: boolean;
}

/** `status` with the count recorded; matchedIsLowerBound only while it is one. */
export function withMatches<S extends CountedStatus>(status: S, matches: Matches): S {
  const next: S = { ...status, matched: matches.count, matchedIsLowerBound: true };
  if (!matches.atLeast) delete next.matchedIsLowerBound;
  return next;
}

/** Ends a deletion that sends nothing (refused by maxMatches, or a dry run) with one event. */
export async function publishWithoutDeleting<T extends PhasedObject<S> & PortObject, S extends CountedStatus>(
  ports: { kube: DeletionKubePort<T>; clock: { now(): number } },
  object: T,
  state: PhaseState,
  matches: Matches,
  signal: AbortSignal,
): Promise<ReconcileResult> {
  const { kube, clock } = ports;
  kube.event(object, state.phase === 'Failed' ? 'Warning' : 'Normal', state.reason, state.message);
  const status = withPhase(object, withMatches({ ...object.status } as S, matches), state, clock.now());
  return (await publishPhase(kube, object, status, signal)) ?? awaitChange;
}
