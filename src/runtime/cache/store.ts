// The informer cache: objects by "namespace/name", plus secondary indexes computed by
// functions (e.g. "which objects reference secret X") so that a change to one object can be
// mapped to the keys of the objects that depend on it without scanning the whole cache.
// Stored objects are deep-frozen: the cache is shared by every reader, and a reconcile that
// mutated a cached object in place would corrupt what every other reader sees.
// An index function that throws (an object that slipped past validation) must not take the
// cache down: the object is stored, left out of that index, and the error is reported. The
// values an object was indexed under are remembered, so removing it never calls the index
// function again (a second throw there once made every relist fail for good).
import { objectKey, type KubeObject } from '../kube/objects.js';

export type IndexFunction<T extends KubeObject> = (object: T) => string[];

export interface StoreChange<T extends KubeObject> {
  added: T[];
  updated: Array<{ old: T; current: T }>;
  deleted: T[];
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export interface IndexedStoreOptions {
  /** An index function threw for the object at `key`; the object is left out of that index. */
  onIndexError?: (indexName: string, key: string, error: unknown) => void;
}

export class IndexedStore<T extends KubeObject = KubeObject> {
  private readonly objects = new Map<string, T>();
  /** index name → index value → object keys. */
  private readonly indexes = new Map<string, Map<string, Set<string>>>();
  /** object key → index name → the values it was indexed under. */
  private readonly indexedUnder = new Map<string, Map<string, string[]>>();

  constructor(
    private readonly indexers: Readonly<Record<string, IndexFunction<T>>> = {},
    private readonly options: IndexedStoreOptions = {},
  ) {
    for (const name of Object.keys(indexers)) this.indexes.set(name, new Map());
  }

  get(key: string): T | undefined {
    return this.objects.get(key);
  }

  list(): T[] {
    return [...this.objects.values()];
  }

  keys(): string[] {
    return [...this.objects.keys()];
  }

  get size(): number {
    return this.objects.size;
  }

  /** Objects whose index function returned `value` for index `indexName`. */
  byIndex(indexName: string, value: string): T[] {
    const index = this.indexes.get(indexName);
    if (!index)
      throw new Error(
        `index "${indexName}" is not defined; defined: ${[...this.indexes.keys()].join(', ') || 'none'}`,
      );
    return [...(index.get(value) ?? [])].flatMap((key) => {
      const object = this.objects.get(key);
      return object ? [object] : [];
    });
  }

  /** Inserts or replaces; returns the previous object, if any. */
  upsert(object: T): T | undefined {
    const key = objectKey(object);
    const old = this.objects.get(key);
    if (old) this.unindex(key);
    const frozen = deepFreeze(object);
    this.objects.set(key, frozen);
    this.index(key, frozen);
    return old;
  }

  /** Removes by key; returns the removed object, if any. */
  delete(key: string): T | undefined {
    const old = this.objects.get(key);
    if (!old) return undefined;
    this.unindex(key);
    this.objects.delete(key);
    return old;
  }

  /**
   * Replaces the contents after a (re)list and reports the difference, so that handlers hear
   * about deletions and changes that happened while no watch was open. `inScope` limits the
   * replacement to the part of the cache the list covered (one namespace of several).
   */
  replace(items: T[], inScope: (object: T) => boolean = () => true): StoreChange<T> {
    const change: StoreChange<T> = { added: [], updated: [], deleted: [] };
    const seen = new Set<string>();
    for (const item of items) {
      const key = objectKey(item);
      seen.add(key);
      const old = this.objects.get(key);
      if (old && old.metadata.resourceVersion === item.metadata.resourceVersion) continue;
      this.upsert(item);
      if (old) change.updated.push({ old, current: item });
      else change.added.push(item);
    }
    for (const [key, object] of [...this.objects]) {
      if (!seen.has(key) && inScope(object)) {
        this.delete(key);
        change.deleted.push(object);
      }
    }
    return change;
  }

  private index(key: string, object: T): void {
    const under = new Map<string, string[]>();
    for (const [name, fn] of Object.entries(this.indexers)) {
      const index = this.indexes.get(name);
      if (!index) continue;
      const values = this.valuesOf(name, fn, key, object);
      under.set(name, values);
      for (const value of values) {
        let keys = index.get(value);
        if (!keys) {
          keys = new Set();
          index.set(value, keys);
        }
        keys.add(key);
      }
    }
    this.indexedUnder.set(key, under);
  }

  private valuesOf(name: string, fn: IndexFunction<T>, key: string, object: T): string[] {
    try {
      return [...new Set(fn(object))];
    } catch (error) {
      this.options.onIndexError?.(name, key, error);
      return [];
    }
  }

  private unindex(key: string): void {
    for (const [name, values] of this.indexedUnder.get(key) ?? []) {
      const index = this.indexes.get(name);
      for (const value of values) {
        const keys = index?.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index?.delete(value);
      }
    }
    this.indexedUnder.delete(key);
  }
}
