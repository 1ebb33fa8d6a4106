// Structural sharing between an object's cached version and the one replacing it. Most watch
// events change one small part of an object (an annotation, the status after a write, the
// resourceVersion always) and bring the rest again, freshly decoded. Keeping the cached,
// already frozen part wherever the new one is equal:
// - spares freezing it again, and lets the new copy die young (a cheap scavenge) instead of
//   being promoted to the old generation to replace an equal copy there;
// - keeps identities stable, so what readers remember by identity (a diff of the spec, a
//   verdict on the status) still holds for an annotation touch.
// Only JSON values come from the API server: the comparison needs no more than that.
import type { KubeObject, ObjectMeta } from '../kube/objects.js';

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

/**
 * Deep equality of two JSON values (key order aside). Anything else that is an object (a Date,
 * a Map) is equal only to itself: its state is not in its own keys.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i += 1) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || !isPlainObject(a) || !isPlainObject(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let count = 0;
  for (const key in left) {
    if (!Object.hasOwn(left, key)) continue;
    count += 1;
    if (!Object.hasOwn(right, key) || !sameJson(left[key], right[key])) return false;
  }
  for (const key in right) if (Object.hasOwn(right, key)) count -= 1;
  return count === 0;
}

function isPlainObject(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
