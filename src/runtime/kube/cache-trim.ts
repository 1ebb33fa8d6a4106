// What an informer's cache drops from every object as it arrives: metadata.managedFields
// (server-side apply's field ownership, often larger than the spec, one entry per writer)
// and kubectl's last-applied-configuration annotation (a second copy of the whole object as
// client-side `kubectl apply` and Argo CD's default sync write it). The operator reads
// neither, and never writes an object back whole from the cache (status and finalizers are
// patched), so neither can be lost on the server. controller-runtime users do the same with
// cache.TransformStripManagedFields; at 10,000 objects it is tens of megabytes.
import type { KubeObject } from './objects.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

export function trimForCache<T extends KubeObject>(object: T): T {
  const metadata = object.metadata as T['metadata'] & { managedFields?: unknown };
  const annotations = metadata.annotations;
  const lastApplied = annotations !== undefined && LAST_APPLIED_ANNOTATION in annotations;
  if (metadata.managedFields === undefined && !lastApplied) return object;
  const { managedFields: _managedFields, ...kept } = metadata;
  if (lastApplied) {
    const { [LAST_APPLIED_ANNOTATION]: _lastApplied, ...otherAnnotations } = annotations;
    return { ...object, metadata: { ...kept, annotations: otherAnnotations } };
  }
  return { ...object, metadata: kept };
}
