// One copy of each short string that many cached objects repeat. Every watch event and every
// list response is parsed into fresh strings, so 5,000 cached AgentDeployments held 10,000
// copies of the same listener id, 5,000 of their apiVersion and of their finalizer, and the
// observed deployments as many again: 12 MB of the 21 MB of strings in a settled operator's heap
// were duplicates (a heap snapshot at N = 5,000, docs/benchmarks.md).
//
// The table is bounded: strings unique to one object (names, uids, ids) pass through it too
// (a resourceVersion, unique to one version, does not), and when it is full it starts afresh.
// A string repeated across the fleet is then held once per generation of the table instead of
// once per object.

/** Longer strings are rarely repeated (messages with names in them): left as they are. */
const MAX_LENGTH = 128;
const MAX_ENTRIES = 16_384;
/**
 * Never repeated: every version of an object has its own (a list and a watch may bring the
 * same one, but the cache keeps one of them). Interned, each watch event put a new string in the
 * table, which grew, filled and started afresh for nothing: 6% of what a no-op reconcile
 * left for the garbage collector (docs/benchmarks.md).
 */
const NEVER_REPEATED_KEY = 'resourceVersion';

export class StringInterner {
  private table = new Map<string, string>();

  constructor(
    private readonly maxEntries = MAX_ENTRIES,
    private readonly maxLength = MAX_LENGTH,
  ) {}

  /** The table's copy of `value` (the first seen since the table last started afresh). */
  intern(value: string): string {
    if (value.length > this.maxLength) return value;
    const held = this.table.get(value);
    if (held !== undefined) return held;
    if (this.table.size >= this.maxEntries) this.table = new Map();
    this.table.set(value, value);
    return value;
  }

  /**
   * Replaces in place every string held by `value` (a parsed JSON value: plain objects and
   * arrays) with the table's copy. Frozen parts are skipped: they were interned when stored.
   * `seal`, if given, is called on each object and array walked once its contents are done
   * (the informer store freezes them in the same walk).
   */
  internAll(value: unknown, seal?: (walked: object) => void): void {
    if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i += 1) {
        const item: unknown = value[i];
        if (typeof item === 'string') value[i] = this.intern(item);
        else this.internAll(item, seal);
      }
    } else {
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const item = record[key];
        if (typeof item === 'string') {
          if (key !== NEVER_REPEATED_KEY) record[key] = this.intern(item);
        } else this.internAll(item, seal);
      }
    }
    seal?.(value);
  }

  get size(): number {
    return this.table.size;
  }
}

/** The process's table: the informer caches and the observation caches share their strings. */
export const sharedStrings = new StringInterner();
