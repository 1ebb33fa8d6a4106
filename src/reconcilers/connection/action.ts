// The one thing the shell does next for a connection.
export type ConnectionAction =
  /**
   * Deleting, but AgentDeployments still use it (this shard's, by name; other shards', by
   * their count): keep the finalizer and say which.
   */
  | {
      kind: 'holdForUsers';
      users: readonly string[];
      otherShards: ReadonlyArray<{ shard: string; usedBy: number }>;
    }
  /** Deleting and unused in every shard: remove the finalizer. */
  | { kind: 'releaseFinalizer' }
  | { kind: 'addFinalizer' }
  /** The key Secret or its key is missing: Ready=False, no call (the Secret's watch wakes us). */
  | { kind: 'credentialMissing'; message: string }
  /** One authenticated read and the /ok checks. */
  | { kind: 'probe' }
  /** Nothing to do until the next probe. */
  | { kind: 'wait'; ms: number }
  /** Deleted and released: nothing left to do. */
  | { kind: 'done' };
