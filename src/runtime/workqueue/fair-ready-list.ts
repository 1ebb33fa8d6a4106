// The keys a work queue holds ready to hand out, fair across shards: first in, first out
// within a shard, and the shards served in turn (round robin), as the API server's priority
// and fairness queues serve flows. With one shard it is a plain FIFO.
//
// Why: the operator's objects are sharded by the connection they deploy through. A thousand
// objects of a saturated EU key all come back for their first look at once; in one FIFO the
// US objects' keys would wait behind every one of them, and US tokens would go unused while
// the workers read EU objects that can only be told to wait.
//
// A shard's turn may hand out several keys in a row (deficit round robin with whole
// quanta): `turnSizeOf` sizes each turn from the shard's oldest key when the turn begins.
// The operator sizes a connection's turns by its key's rate, so that while every shard has
// keys waiting the workers go to each key in proportion to the calls it may make; a shard
// with nothing ready gives up the rest of its turn, so no worker waits for it.
//
// Within a shard, keys may be fair too: `newShard` gives each shard its own list, such as
// another FairReadyList over the keys' namespaces, so that one namespace's thousand keys do
// not queue ahead of another namespace's one on the same connection.

/** Ready keys in the order they are handed out; a plain array is one FIFO. */
export interface ReadyKeys {
  readonly length: number;
  push(key: string): void;
  shift(): string | undefined;
}

export class FairReadyList implements ReadyKeys {
  /** Each shard's ready keys; only shards with keys are present. */
  private readonly shards = new Map<string, ReadyKeys>();
  /** Shards with keys, in the order they are served next; the first is being served. */
  private readonly turns: string[] = [];
  private size = 0;
  /** Keys the first shard of `turns` may still hand out in its current turn; 0 before it begins. */
  private turnLeft = 0;

  constructor(
    private readonly shardOf: (key: string) => string,
    private readonly turnSizeOf: (key: string) => number = () => 1,
    private readonly newShard: () => ReadyKeys = () => [],
  ) {}

  get length(): number {
    return this.size;
  }

  push(key: string): void {
    const shard = this.shardOf(key);
    let keys = this.shards.get(shard);
    if (keys === undefined) {
      keys = this.newShard();
      this.shards.set(shard, keys);
      this.turns.push(shard);
    }
    keys.push(key);
    this.size += 1;
  }

  /** The next key of the shard whose turn it is; at the turn's end that shard goes to the back. */
  shift(): string | undefined {
    const shard = this.turns[0];
    if (shard === undefined) return undefined;
    const keys = this.shards.get(shard);
    const key = keys?.shift();
    if (keys === undefined || key === undefined) return undefined;
    this.size -= 1;
    // Alone, a shard's turns need no sizing: it is served whatever their length.
    if (this.turnLeft === 0) this.turnLeft = this.turns.length === 1 ? 1 : wholeTurn(this.turnSizeOf(key));
    this.turnLeft -= 1;
    if (keys.length === 0) {
      this.shards.delete(shard);
      this.turns.shift();
      this.turnLeft = 0;
    } else if (this.turnLeft === 0) {
      this.turns.shift();
      this.turns.push(shard);
    }
    return key;
  }

  clear(): void {
    this.shards.clear();
    this.turns.length = 0;
    this.size = 0;
    this.turnLeft = 0;
  }
}

/** At least one key a turn, whatever the sizing says (a shard is never skipped). */
function wholeTurn(size: number): number {
  return Number.isFinite(size) && size >= 1 ? Math.floor(size) : 1;
}
