// All stored objects, one ResourceStore per storage key, and the global resourceVersion
// counter that makes versions comparable across resources (like etcd's revision).
import { ResourceStore } from './resource-store.js';

export class ObjectStore {
  private revision = 1;
  private readonly resources = new Map<string, ResourceStore>();

  constructor(private readonly historyLimit: number) {}

  /** Takes the next resourceVersion for a write. */
  nextRevision(): number {
    this.revision += 1;
    return this.revision;
  }

  get currentRevision(): number {
    return this.revision;
  }

  resource(storageKey: string): ResourceStore {
    let store = this.resources.get(storageKey);
    if (!store) {
      store = new ResourceStore(this.historyLimit);
      this.resources.set(storageKey, store);
    }
    return store;
  }

  allResources(): IterableIterator<[string, ResourceStore]> {
    return this.resources.entries();
  }
}
