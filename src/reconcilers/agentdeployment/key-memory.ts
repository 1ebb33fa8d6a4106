// What the reconciler remembers between passes for one object, in this process only.
// Everything here is an optimisation or a measurement: after a restart it is empty and the
// reconciler falls back on what status records (ownership, the Stalled condition, the
// latest revision's status), which is why a restart repeats no call, event or count.
import type { RefusedAttempt, RefusedCreate, SmokeTestAttempts } from './observed.js';
import type { Failure } from './ports.js';
import type { SpecMemo } from './spec-memo.js';
import type { UnchangedStatus } from './status-memo.js';

export interface KeyMemory {
  /** The last create or update the control plane refused, with its re-check count. */
  refused?: RefusedAttempt;
  /** A create refused a moment ago, until the next decide tells a name clash from another reason. */
  refusedCreate?: RefusedCreate;
  /** When the next revision GET may be made (failure detection and phase display). */
  nextRevisionPollAt: number;
  /** The last status seen for a revision id. */
  revisionStatus: Map<string, string>;
  /** When the rollout of a revision started, for the rollout-time metric. */
  rolloutStartedAt: Map<string, number>;
  /** The smoke-test calls of the latest revision, until status records the verdict. */
  smokeTest?: SmokeTestAttempts;
  /** The spec's validation and desired deployment, for its uid and generation (spec-memo.ts). */
  spec?: SpecMemo;
  /** The last status that needed no write, and what it was decided from (status-memo.ts). */
  unchangedStatus?: UnchangedStatus;
  /** A create the budget refused: when its place in the budget's line comes, and the refusal. */
  createWait?: { until: number; error: Failure };
}

export class KeyMemoryStore {
  private readonly entries = new Map<string, KeyMemory>();

  get(key: string): KeyMemory {
    let memory = this.entries.get(key);
    if (!memory) {
      memory = { nextRevisionPollAt: 0, revisionStatus: new Map(), rolloutStartedAt: new Map() };
      this.entries.set(key, memory);
    }
    return memory;
  }

  /** The memory of `key` if there is one, without making one (for late callbacks). */
  peek(key: string): KeyMemory | undefined {
    return this.entries.get(key);
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}
