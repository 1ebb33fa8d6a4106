// Which updates of an AgentDeployment deserve a reconcile. The operator's own status writes
// would otherwise wake the object again for nothing (one extra pass per write, at 10,000
// objects a real cost). A re-delivery of the same object (the cache's periodic resync) and
// anything that changes the spec (generation), the deletion state, annotations or
// finalizers does.
import type { KubeObject } from '../../runtime/kube/objects.js';

export function shouldReconcileOnUpdate(old: KubeObject, current: KubeObject): boolean {
  if (old === current) return true;
  const before = old.metadata;
  const after = current.metadata;
  return (
    before.generation !== after.generation ||
    before.deletionTimestamp !== after.deletionTimestamp ||
    JSON.stringify(before.annotations ?? {}) !== JSON.stringify(after.annotations ?? {}) ||
    JSON.stringify(before.finalizers ?? []) !== JSON.stringify(after.finalizers ?? [])
  );
}
