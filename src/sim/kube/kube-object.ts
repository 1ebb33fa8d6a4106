// The shape every stored object shares. Objects are plain JSON trees; the store never
// mutates one after it is stored (writes build a new tree), so readers can share them.
import { cloneJsonValue } from '../json-clone.js';

export type JsonObject = Record<string, unknown>;

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: unknown[];
  managedFields?: unknown;
  [key: string]: unknown;
}

export interface KubeObject extends JsonObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A key unique within one resource: "namespace/name" or just "name" for cluster-scoped kinds. */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** Deep structural equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  const left = a as JsonObject;
  const right = b as JsonObject;
  const leftKeys = Object.keys(left).filter((k) => left[k] !== undefined);
  const rightKeys = Object.keys(right).filter((k) => right[k] !== undefined);
  if (leftKeys.length !== rightKeys.length) return false;
  return leftKeys.every((k) => jsonEqual(left[k], right[k]));
}

/** A deep copy for the few places that must edit a stored tree (patches, status swaps). */
export function cloneJson<T>(value: T): T {
  return cloneJsonValue(value);
}

/** RFC 3339 with second precision, the way metav1.Time serializes. */
export function nowTimestamp(clock: () => number = Date.now): string {
  return new Date(Math.floor(clock() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
