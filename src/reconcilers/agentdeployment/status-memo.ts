// "This status needs no write", remembered in the key's memory for the status object it was
// decided on. The next status is a function of the object's current status, its generation,
// the pass's sync state and status facts (status.ts), and of the clock only where something
// changes (a condition's transition time, a new revision's entry). So once a pass found that
// the status it would write equals the one the object has, a later pass with the very same
// status object, the same generation and equal state and facts finds the same, and need not
// build and compare it.
//
// The cache keeps an object's status object across versions that leave it unchanged (the
// store's structural sharing), so an annotation touch or a resync of a settled object finds
// its verdict here; a status write replaces the object, and the verdict no longer matches.
// Kept per key (one at most) rather than in a weak map: ephemeron tables of thousands of
// entries cost every garbage collection more than they save.
import { sameJson } from '../../runtime/same-json.js';
import type { AgentDeploymentStatusView } from './object.js';
import type { StatusFacts } from './status.js';
import type { SyncState } from './sync-state.js';

export interface UnchangedStatus {
  /** The status object (frozen, from the cache) that needed no write. */
  status: AgentDeploymentStatusView;
  generation: number;
  state: SyncState;
  facts: StatusFacts;
}

/** Whether `memo` says that `status` needs no write for these inputs. */
export function knownUnchanged(
  memo: UnchangedStatus | undefined,
  status: AgentDeploymentStatusView | undefined,
  generation: number,
  state: SyncState,
  facts: StatusFacts,
): boolean {
  return (
    memo !== undefined &&
    status !== undefined &&
    memo.status === status &&
    memo.generation === generation &&
    sameJson(memo.state, state) &&
    sameJson(memo.facts, facts)
  );
}

/** The memo for a status that needed no write; undefined for one that could still change in place. */
export function unchangedStatus(
  status: AgentDeploymentStatusView | undefined,
  generation: number,
  state: SyncState,
  facts: StatusFacts,
): UnchangedStatus | undefined {
  if (status === undefined || !Object.isFrozen(status)) return undefined;
  return { status, generation, state, facts };
}
