// Objects of one resource (one storage), with an index by namespace, a bounded history of
// changes for watches that resume from a resourceVersion, and the live watch listeners.
// Stored objects are never mutated; every write stores a new tree.
import type { KubeObject } from './kube-object.js';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface Change {
  type: ChangeType;
  resourceVersion: number;
  object: KubeObject;
  /** The object before the change; watches with selectors need it to turn MODIFIED into ADDED/DELETED. */
  previous?: KubeObject;
}

export type ChangeListener = (change: Change) => void;

export class ResourceStore {
  private readonly objects = new Map<string, KubeObject>();
  private readonly keysByNamespace = new Map<string, Set<string>>();
  private sortedKeys: string[] | undefined;
  private history: Change[] = [];
  private historyStart = 0;
  /** Every change with a resourceVersion above this one is still in the history. */
  private completeAfter = 0;
  private readonly listeners = new Set<ChangeListener>();

  constructor(private readonly historyLimit: number) {}

  get size(): number {
    return this.objects.size;
  }

  get(key: string): KubeObject | undefined {
    return this.objects.get(key);
  }

  /** Keys in etcd order (namespace, then name), optionally of one namespace only. */
  keys(namespace?: string): string[] {
    if (namespace !== undefined) {
      const keys = this.keysByNamespace.get(namespace);
      return keys ? [...keys].sort() : [];
    }
    this.sortedKeys ??= [...this.objects.keys()].sort();
    return this.sortedKeys;
  }

  namespaceCount(namespace: string): number {
    return this.keysByNamespace.get(namespace)?.size ?? 0;
  }

  /** Stores (or replaces) an object and tells the watchers. */
  put(key: string, object: KubeObject, resourceVersion: number): void {
    const previous = this.objects.get(key);
    this.objects.set(key, object);
    if (!previous) {
      this.sortedKeys = undefined;
      const namespace = object.metadata.namespace;
      if (namespace) {
        let keys = this.keysByNamespace.get(namespace);
        if (!keys) this.keysByNamespace.set(namespace, (keys = new Set()));
        keys.add(key);
      }
    }
    const change: Change = previous
      ? { type: 'MODIFIED', resourceVersion, object, previous }
      : { type: 'ADDED', resourceVersion, object };
    this.record(change);
  }

  /** Removes an object; `finalObject` is what DELETED carries (with the deletion's resourceVersion). */
  remove(key: string, finalObject: KubeObject, resourceVersion: number): void {
    const previous = this.objects.get(key);
    if (!previous) return;
    this.objects.delete(key);
    this.sortedKeys = undefined;
    const namespace = previous.metadata.namespace;
    if (namespace) {
      const keys = this.keysByNamespace.get(namespace);
      keys?.delete(key);
      if (keys?.size === 0) this.keysByNamespace.delete(namespace);
    }
    this.record({ type: 'DELETED', resourceVersion, object: finalObject, previous });
  }

  private record(change: Change): void {
    this.history.push(change);
    if (this.history.length - this.historyStart > this.historyLimit) {
      const dropped = this.history[this.historyStart];
      this.historyStart += 1;
      if (dropped) this.completeAfter = dropped.resourceVersion;
      // Compact now and then so the array does not grow without bound.
      if (this.historyStart >= this.historyLimit) {
        this.history = this.history.slice(this.historyStart);
        this.historyStart = 0;
      }
    }
    for (const listener of this.listeners) listener(change);
  }

  /**
   * Changes after `resourceVersion`, or undefined when some of them are no longer kept
   * (the caller answers 410 Expired).
   */
  changesSince(resourceVersion: number): Change[] | undefined {
    if (resourceVersion < this.completeAfter) return undefined;
    let low = this.historyStart;
    let high = this.history.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const change = this.history[middle];
      if (change && change.resourceVersion <= resourceVersion) low = middle + 1;
      else high = middle;
    }
    return this.history.slice(low);
  }

  oldestKeptResourceVersion(): number {
    return this.completeAfter;
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
