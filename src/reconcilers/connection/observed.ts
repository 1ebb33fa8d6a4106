// Everything decide() needs to know about one connection, gathered by the shell from caches
// and from what this process remembers of its last probe. No call is made to gather it.

/** What this process remembers of a connection's last probe (lost on restart: then it probes once). */
export interface ProbeMemory {
  /** Clock ms at which the next probe is due. */
  nextAt: number;
  /** Consecutive failed probes (the backoff's exponent). */
  failures: number;
  /** The generation and the credential version the last probe was made with. */
  generation: number;
  credentialVersion: string;
}

export interface ConnectionObserved {
  generation: number;
  deleting: boolean;
  hasFinalizer: boolean;
  /** `namespace/name` of the AgentDeployments that name this connection (this shard's, when sharded). */
  users: readonly string[];
  /**
   * Other shards whose entries in status.shardUsers say they still use it (expired entries left
   * out); always empty when the operator is not sharded.
   */
  otherShards: ReadonlyArray<{ shard: string; usedBy: number }>;
  credential: { ok: true; version: string } | { ok: false; message: string };
  memory: ProbeMemory | undefined;
  now: number;
}
