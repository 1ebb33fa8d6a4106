// The notifications a cache emits. Handlers run synchronously on the reflector's loop, so they
// must be cheap (map the object to keys and add them to a work queue) and must not throw.
import type { KubeObject } from '../kube/objects.js';

export interface ResourceEventHandler<T extends KubeObject = KubeObject> {
  onAdd?(object: T): void;
  onUpdate?(old: T, current: T): void;
  /** `object` is the last state known; after a relist it may predate the real deletion. */
  onDelete?(object: T): void;
}
