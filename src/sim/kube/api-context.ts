// Shared state of one emulator: the store, the served resources, the validator, and the
// conversions between a served version and the stored form.
import { notFound } from './api-error.js';
import { objectKey, type KubeObject } from './kube-object.js';
import { ObjectStore } from './object-store.js';
import { ResourceRegistry } from './registry.js';
import { apiVersionOf, type ResourceType } from './resource-type.js';
import type { ResourceStore } from './resource-store.js';
import type { CustomResourceValidator } from './validation-adapter.js';

/** Called after an object left the store for good (finalizers empty, or none). */
export type RemovalHook = (type: ResourceType, object: KubeObject) => void;
/** Called after an object was created or updated (not on a no-op). */
export type WriteHook = (type: ResourceType, object: KubeObject, previous: KubeObject | undefined) => void;

export class ApiContext {
  readonly store: ObjectStore;
  readonly registry = new ResourceRegistry();
  readonly removalHooks: RemovalHook[] = [];
  readonly writeHooks: WriteHook[] = [];
  /** Called once when an object held by finalizers gets its deletionTimestamp. */
  readonly deletionHooks: RemovalHook[] = [];

  constructor(
    readonly validator: CustomResourceValidator,
    historyLimit: number,
    readonly clock: () => number = Date.now,
  ) {
    this.store = new ObjectStore(historyLimit);
  }

  resourceStore(type: ResourceType): ResourceStore {
    return this.store.resource(type.storageKey);
  }

  toServed(type: ResourceType, version: string, stored: KubeObject): KubeObject {
    const apiVersion = apiVersionOf(type.group, version);
    if (type.converter) return type.converter.fromStorage(stored);
    if (stored.apiVersion === apiVersion && stored.kind === type.kind) return stored;
    return { ...stored, apiVersion, kind: type.kind };
  }

  toStorage(type: ResourceType, served: KubeObject): KubeObject {
    if (type.converter) return type.converter.toStorage(served);
    return { ...served, apiVersion: type.storageApiVersion, kind: type.kind };
  }

  /** The stored object or a 404 NotFound Status. */
  requireStored(type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const stored = this.resourceStore(type).get(objectKey(type.namespaced ? namespace : undefined, name));
    if (!stored) throw notFound(type.group, type.plural, name);
    return stored;
  }

  namespaceObject(name: string): KubeObject | undefined {
    return this.store.resource('/namespaces').get(name);
  }

  /** Objects left in a namespace, over every resource. */
  countInNamespace(namespace: string): number {
    let count = 0;
    for (const [, store] of this.store.allResources()) count += store.namespaceCount(namespace);
    return count;
  }
}
