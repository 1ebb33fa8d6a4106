// Uniqueness of `x-kubernetes-list-type: set` items and `map` keys, checked after the
// schema validation like the apiextensions-apiserver's listtype package. Paths use
// field.Path notation (`spec.ports[1]`, `spec.byName[key]`).
import type { SchemaNode } from './compiled-schema.js';
import { duplicate, invalid, type FieldCause } from './field-errors.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function join(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

/** Indices of the second appearance of each repeated value (later repeats are not reported). */
function secondAppearances(values: readonly unknown[]): number[] {
  const counts = new Map<string, number>();
  const repeated: number[] = [];
  values.forEach((value, i) => {
    const key = value === undefined ? '\u0000unspecified' : JSON.stringify(value);
    const seen = counts.get(key) ?? 0;
    if (seen === 1) repeated.push(i);
    counts.set(key, seen + 1);
  });
  return repeated;
}

function validateListMap(items: unknown[], keys: readonly string[], path: string, causes: FieldCause[]): void {
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item !== null && !isPlainObject(item)) {
      causes.push(invalid(`${path}[${i}]`, item, 'must be an object for an array of list-type map'));
      return;
    }
  }
  if (items.length <= 1) return;
  const keyValues = items.map((item) => {
    const record = isPlainObject(item) ? item : {};
    const key: Record<string, unknown> = {};
    for (const field of keys) if (field in record) key[field] = record[field];
    return key;
  });
  const comparable = keys.length === 1 ? keyValues.map((k) => (keys[0] !== undefined && keys[0] in k ? k[keys[0]] : undefined)) : keyValues;
  for (const i of secondAppearances(comparable)) causes.push(duplicate(`${path}[${i}]`, keyValues[i]));
}

function validateList(items: unknown[], node: SchemaNode, path: string, causes: FieldCause[]): void {
  const listType = node.schema['x-kubernetes-list-type'];
  if (listType === 'set' && items.length > 1) {
    for (const i of secondAppearances(items)) causes.push(duplicate(`${path}[${i}]`, items[i]));
  } else if (listType === 'map') {
    validateListMap(items, node.schema['x-kubernetes-list-map-keys'] ?? [], path, causes);
  }
  const itemNode = node.items;
  if (itemNode !== undefined) items.forEach((item, i) => validateListTypes(item, itemNode, `${path}[${i}]`, causes));
}

/** Validate list-type invariants everywhere below `value`. */
export function validateListTypes(value: unknown, node: SchemaNode, path: string, causes: FieldCause[]): void {
  if (Array.isArray(value)) {
    validateList(value, node, path, causes);
    return;
  }
  if (!isPlainObject(value)) return;
  for (const key of Object.keys(value)) {
    const declared = node.properties?.get(key);
    if (declared !== undefined) validateListTypes(value[key], declared, join(path, key), causes);
    else if (node.additionalProperties !== undefined) validateListTypes(value[key], node.additionalProperties, `${path}[${key}]`, causes);
  }
}
