// Structural sharing between an object's cached version and the one replacing it. Most watch
// events change one small part of an object (an annotation, the status after a write, the
// resourceVersion always) and bring the rest again, freshly decoded. Keeping the cached,
// already frozen part wherever the new one is equal:
// - spares freezing it again, and lets the new copy die young (a cheap scavenge) instead of
//   being promoted to the old generation to replace an equal copy there;
// - keeps identities stable, so what readers remember by identity (a diff of the spec, a
//   verdict on the status) still holds for an annotation touch.
import type { KubeObject, ObjectMeta } from '../kube/objects.js';
import { sameJson } from '../same-json.js';

/** The metadata fields that are objects or lists, worth sharing when equal. */
const SHARED_METADATA_FIELDS: ReadonlyArray<keyof ObjectMeta> = [
  'labels',
  'annotations',
  'finalizers',
  'ownerReferences',
];

/**
 * Replaces, in `next` (not yet frozen), every top-level part and every list or map of its
 * metadata that equals `previous`'s by `previous`'s own. Returns `next`.
 */
export function shareUnchangedParts<T extends KubeObject>(previous: T, next: T): T {
  if (previous === next || Object.isFrozen(next)) return next;
  const target = next as Record<string, unknown>;
  const source = previous as Record<string, unknown>;
  for (const field of Object.keys(next)) {
    if (field === 'metadata') continue;
    if (field in source && sameJson(source[field], target[field])) target[field] = source[field];
  }
  const metadata = next.metadata;
  if (Object.isFrozen(metadata)) return next;
  for (const field of SHARED_METADATA_FIELDS) {
    const before = previous.metadata[field];
    if (before !== undefined && sameJson(before, metadata[field])) metadata[field] = before;
  }
  return next;
}
