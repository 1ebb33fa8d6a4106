// Deep equality of JSON values and the "correlated old value" of a child, which both
// validation ratcheting and CEL transition rules (oldSelf) rely on. Upstream correlates
// object fields and map keys, and list-type=map items by their keys; other list items
// have no correlated old value.
import type { SchemaNode } from './compiled-schema.js';

export interface OldValue {
  value: unknown;
}

export function deepEqualJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'bigint' || typeof b === 'bigint') return typeof a === typeof b && a === b;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => deepEqualJson(item, b[i]));
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const recordA = a as Record<string, unknown>;
  const recordB = b as Record<string, unknown>;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(recordB, k) && deepEqualJson(recordA[k], recordB[k]));
}

export function oldChildByKey(old: OldValue | undefined, key: string): OldValue | undefined {
  if (old === undefined) return undefined;
  const container = old.value;
  if (container === null || typeof container !== 'object' || Array.isArray(container)) return undefined;
  const record = container as Record<string, unknown>;
  return Object.prototype.hasOwnProperty.call(record, key) ? { value: record[key] } : undefined;
}

function listMapKey(item: unknown, keys: readonly string[]): string | undefined {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return undefined;
  const record = item as Record<string, unknown>;
  return JSON.stringify(keys.map((k) => record[k] ?? null), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/** For list-type=map lists, a lookup from an item to the old item with the same keys. */
export function oldListItems(node: SchemaNode, old: OldValue | undefined): ((item: unknown) => OldValue | undefined) | undefined {
  if (old === undefined || !Array.isArray(old.value)) return undefined;
  if (node.schema['x-kubernetes-list-type'] !== 'map') return undefined;
  const keys = node.schema['x-kubernetes-list-map-keys'] ?? [];
  const byKey = new Map<string, unknown>();
  for (const item of old.value as unknown[]) {
    const k = listMapKey(item, keys);
    if (k !== undefined) byKey.set(k, item);
  }
  return (item: unknown) => {
    const k = listMapKey(item, keys);
    return k !== undefined && byKey.has(k) ? { value: byKey.get(k) } : undefined;
  };
}
