// One pass over one key: the key, its object as read at the start, the lane its calls go
// through, and its memory, handed from observe to perform so that no step looks them up
// again. Shared by the shell's parts, with what they hold for every pass (deps, timings, the
// memory of every key).
import type { ReconcilerTimings } from './defaults.js';
import type { ReconcilerDeps } from './deps.js';
import type { KeyMemory, KeyMemoryStore } from './key-memory.js';
import type { AgentDeploymentView } from './object.js';
import type { ControlPlaneLane, Failure } from './ports.js';
import type { StatusFacts } from './status.js';

/** What every pass of the shell shares. */
export interface Shell<Object extends AgentDeploymentView> {
  deps: ReconcilerDeps<Object>;
  timings: ReconcilerTimings;
  memory: KeyMemoryStore;
}

export class PassContext<Object extends AgentDeploymentView> {
  constructor(
    readonly key: string,
    readonly object: Object,
    readonly lane: ControlPlaneLane,
    readonly signal: AbortSignal,
    private readonly store: KeyMemoryStore,
  ) {}

  /** This key's memory now (a step may have forgotten it: the next read starts afresh). */
  get memory(): KeyMemory {
    return this.store.get(this.key);
  }
}

/** A failure of a pass, for the error policy: what failed, and the object and facts to show it on. */
export interface PassFailure<Object extends AgentDeploymentView> {
  object: Object;
  error: Failure;
  /** Status facts to record with the failure's state (e.g. a create intent cleared). */
  facts?: StatusFacts;
}

/**
 * Revision GETs cost one call per object, so their pace is set by how many objects are in
 * flight: all together they may use `revisionPollBudgetShare` of the budget. With a few
 * objects that is every couple of seconds; with a thousand, rarely, and the batched
 * deployment lists (active_revision_id) carry the news of success.
 */
export function revisionPollIntervalMs(timings: ReconcilerTimings, lane: ControlPlaneLane): number {
  const callsPerSecond = Math.max(
    lane.controlPlane.allowedRatePerSecond() * timings.revisionPollBudgetShare,
    0.001,
  );
  const perObjectMs = (lane.poller.inflightCount / callsPerSecond) * 1000;
  return Math.max(timings.minRevisionPollMs, perObjectMs);
}
