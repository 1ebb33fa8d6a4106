// Defaulting as the apiextensions-apiserver applies it after pruning: first drop nulls of
// non-nullable fields that have no default, then fill in `default`s wherever the parent
// object exists (never creating parents), inside objects, schema maps and array items.
import { cloneJsonValue } from '../../json-clone.js';
import type { SchemaNode } from './compiled-schema.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function schemaForKey(node: SchemaNode | undefined, key: string): SchemaNode | undefined {
  if (node === undefined) return undefined;
  return node.properties?.get(key) ?? node.additionalProperties;
}

function isNonNullableNull(value: unknown, node: SchemaNode | undefined): boolean {
  return value === null && node !== undefined && !node.nullable;
}

/** Nulls where the schema forbids them and offers no default are removed, not rejected. */
export function pruneNonNullableNullsWithoutDefaults(value: unknown, node: SchemaNode | undefined): void {
  if (Array.isArray(value)) {
    for (const item of value) pruneNonNullableNullsWithoutDefaults(item, node?.items);
    return;
  }
  if (!isPlainObject(value)) return;
  for (const key of Object.keys(value)) {
    const sub = schemaForKey(node, key);
    if (isNonNullableNull(value[key], sub) && sub?.schema.default === undefined) delete value[key];
    else pruneNonNullableNullsWithoutDefaults(value[key], sub);
  }
}

function copyDefault(node: SchemaNode): unknown {
  return cloneJsonValue(node.schema.default);
}

/** Apply defaults in place. Defaults themselves are defaulted further down, as upstream does. */
export function applyDefaults(value: unknown, node: SchemaNode | undefined): void {
  if (node === undefined || !node.hasDefaultsBelow) return;
  if (Array.isArray(value)) {
    const items = node.items;
    if (items === undefined) return;
    value.forEach((item, i) => {
      if (isNonNullableNull(item, items) && items.schema.default !== undefined) value[i] = copyDefault(items);
      applyDefaults(value[i], items);
    });
    return;
  }
  if (!isPlainObject(value)) return;
  for (const [key, prop] of node.properties ?? []) {
    if (prop.schema.default === undefined) continue;
    if (!(key in value) || isNonNullableNull(value[key], prop)) value[key] = copyDefault(prop);
  }
  for (const key of Object.keys(value)) {
    const declared = node.properties?.get(key);
    if (declared !== undefined) {
      applyDefaults(value[key], declared);
    } else if (node.additionalProperties !== undefined) {
      const additional = node.additionalProperties;
      if (isNonNullableNull(value[key], additional) && additional.schema.default !== undefined) value[key] = copyDefault(additional);
      applyDefaults(value[key], additional);
    }
  }
}
