// The keys a work queue holds ready to hand out, fair across shards: first in, first out
// within a shard, and the shards served in turn (round robin), as the API server's priority
// and fairness queues serve flows. With one shard it is a plain FIFO.
//
// Why: the operator's objects are sharded by the connection they deploy through. A thousand
// objects of a saturated EU key all come back for their first look at once; in one FIFO the
// US objects' keys would wait behind every one of them, and US tokens would go unused while
// the workers read EU objects that can only be told to wait.
export class FairReadyList {
  /** Each shard's ready keys, oldest first; only shards with keys are present. */
  private readonly shards = new Map<string, string[]>();
  /** Shards with keys, in the order they are served next. */
  private readonly turns: string[] = [];
  private size = 0;

  constructor(private readonly shardOf: (key: string) => string) {}

  get length(): number {
    return this.size;
  }

  push(key: string): void {
    const shard = this.shardOf(key);
    let keys = this.shards.get(shard);
    if (keys === undefined) {
      keys = [];
      this.shards.set(shard, keys);
      this.turns.push(shard);
    }
    keys.push(key);
    this.size += 1;
  }

  /** The oldest key of the shard whose turn it is; that shard goes to the back of the turns. */
  shift(): string | undefined {
    const shard = this.turns.shift();
    if (shard === undefined) return undefined;
    const keys = this.shards.get(shard) ?? [];
    const key = keys.shift();
    if (keys.length > 0) this.turns.push(shard);
    else this.shards.delete(shard);
    if (key !== undefined) this.size -= 1;
    return key;
  }

  clear(): void {
    this.shards.clear();
    this.turns.length = 0;
    this.size = 0;
  }
}
