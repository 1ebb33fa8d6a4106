// The informer cache: objects by "namespace/name", plus secondary indexes computed by
// functions (e.g. "which objects reference secret X") so that a change to one object can be
// mapped to the keys of the objects that depend on it without scanning the whole cache.
// Stored objects are deep-frozen: the cache is shared by every reader, and a reconcile that
// mutated a cached object in place would corrupt what every other reader sees. A new version
// keeps the parts of the old one it equals (structural-sharing.ts): only what changed is
// frozen and kept anew, its strings replaced by the process's shared copies (string-interner.ts).
// An index function that throws (an object that slipped past validation) must not take the
// cache down: the object is stored, left out of that index, and the error is reported. The
// values an object was indexed under are remembered, so removing it never calls the index
// function again (a second throw there once made every relist fail for good).
import { objectKey, type KubeObject } from '../kube/objects.js';
import { sharedStrings } from './string-interner.js';
import { shareUnchangedParts } from './structural-sharing.js';

export type IndexFunction<T extends KubeObject> = (object: T) => readonly string[];

export interface StoreChange<T extends KubeObject> {
  added: T[];
  updated: Array<{ old: T; current: T }>;
  deleted: T[];
}

export interface IndexedStoreOptions {
  /** An index function threw for the object at `key`; the object is left out of that index. */
  onIndexError?: (indexName: string, key: string, error: unknown) => void;
}

export class IndexedStore<T extends KubeObject = KubeObject> {
  private readonly objects = new Map<string, T>();
  /**
   * index name → index value → the key of the one object under it, or the keys of several.
   * Most values (a deployment id, a control-plane name) belong to one object: a bare string
   * costs a fraction of a one-element Set, once per object per index.
   */
  private readonly indexes = new Map<string, Map<string, string | Set<string>>>();
  /** object key → the values it was indexed under, one list per index in `indexNames` order. */
  private readonly indexedUnder = new Map<string, ReadonlyArray<readonly string[]>>();
  private readonly indexNames: readonly string[];

  constructor(
    private readonly indexers: Readonly<Record<string, IndexFunction<T>>> = {},
    private readonly options: IndexedStoreOptions = {},
  ) {
    this.indexNames = Object.keys(indexers);
    for (const name of this.indexNames) this.indexes.set(name, new Map());
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
    const keys = index.get(value);
    if (keys === undefined) return [];
    // Most values name one object, and three lookups run in every pass: no copy of the keys,
    // no array per key.
    if (typeof keys === 'string') {
      const object = this.objects.get(keys);
      return object === undefined ? [] : [object];
    }
    const found: T[] = [];
    for (const key of keys) {
      const object = this.objects.get(key);
      if (object !== undefined) found.push(object);
    }
    return found;
  }

  /** Inserts or replaces; returns the previous object, if any. */
  upsert(object: T): T | undefined {
    const key = objectKey(object);
    const old = this.objects.get(key);
    const frozen = old === undefined ? object : shareUnchangedParts(old, object);
    // One walk over the parts not yet frozen: their strings shared, then each part frozen.
    sharedStrings.internAll(frozen, Object.freeze);
    this.objects.set(key, frozen);
    this.reindex(key, frozen);
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

  /**
   * Indexes `object` under its values now, moving it only in the indexes whose values
   * changed: most updates (a status write, an annotation) change none, and leave the
   * indexes untouched.
   */
  private reindex(key: string, object: T): void {
    const before = this.indexedUnder.get(key);
    const after = this.indexNames.map((name, i) => {
      const values = this.valuesOf(name, this.indexers[name] as IndexFunction<T>, key, object);
      const previous = before?.[i];
      return previous !== undefined && sameValues(previous, values) ? previous : values;
    });
    this.indexNames.forEach((name, i) => {
      const previous = before?.[i] ?? NO_VALUES;
      const current = after[i] ?? NO_VALUES;
      if (previous === current) return;
      const index = this.indexes.get(name);
      if (!index) return;
      for (const value of previous) if (!current.includes(value)) removeKey(index, value, key);
      for (const value of current) if (!previous.includes(value)) addKey(index, value, key);
    });
    if (after.every((values) => values.length === 0)) this.indexedUnder.delete(key);
    else this.indexedUnder.set(key, after);
  }

  private valuesOf(name: string, fn: IndexFunction<T>, key: string, object: T): readonly string[] {
    try {
      const values = fn(object);
      if (values.length === 0) return NO_VALUES;
      return values.length === 1 ? values : [...new Set(values)];
    } catch (error) {
      this.options.onIndexError?.(name, key, error);
      return NO_VALUES;
    }
  }

  private unindex(key: string): void {
    const under = this.indexedUnder.get(key);
    this.indexNames.forEach((name, i) => {
      const index = this.indexes.get(name);
      for (const value of under?.[i] ?? NO_VALUES) if (index) removeKey(index, value, key);
    });
    this.indexedUnder.delete(key);
  }
}

const NO_VALUES: readonly string[] = Object.freeze([]);

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

function addKey(index: Map<string, string | Set<string>>, value: string, key: string): void {
  const keys = index.get(value);
  if (keys === undefined) index.set(value, key);
  else if (typeof keys === 'string') {
    if (keys !== key) index.set(value, new Set([keys, key]));
  } else keys.add(key);
}

function removeKey(index: Map<string, string | Set<string>>, value: string, key: string): void {
  const keys = index.get(value);
  if (keys === undefined) return;
  if (typeof keys === 'string') {
    if (keys === key) index.delete(value);
    return;
  }
  keys.delete(key);
  if (keys.size === 1) index.set(value, keys.values().next().value as string);
  else if (keys.size === 0) index.delete(value);
}
