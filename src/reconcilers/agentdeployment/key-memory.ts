// What the reconciler remembers between passes for one object, in this process only.
// Everything here is an optimisation or a measurement: after a restart it is empty and the
// reconciler falls back to the safe path (look up by name, poll the revision now).

export interface KeyMemory {
  /** A create-pending annotation is set, but this process knows its POST never left. */
  pendingCreateNotSent: boolean;
  /** When the next revision GET may be made (failure detection and phase display). */
  nextRevisionPollAt: number;
  /** The last status seen for a revision id. */
  revisionStatus: Map<string, string>;
  /** When the rollout of a revision started, for the rollout-time metric. */
  rolloutStartedAt: Map<string, number>;
  /** Revisions whose terminal state was already announced (event, metric). */
  announced: Set<string>;
}

export class KeyMemoryStore {
  private readonly entries = new Map<string, KeyMemory>();

  get(key: string): KeyMemory {
    let memory = this.entries.get(key);
    if (!memory) {
      memory = {
        pendingCreateNotSent: false,
        nextRevisionPollAt: 0,
        revisionStatus: new Map(),
        rolloutStartedAt: new Map(),
        announced: new Set(),
      };
      this.entries.set(key, memory);
    }
    return memory;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}
