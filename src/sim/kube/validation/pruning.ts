// Pruning of fields the schema does not declare, as the apiextensions-apiserver does while
// decoding: it mutates the object in place and reports every dropped field's path
// (`spec.foo`, `spec.items[0].bar`) so the caller can apply fieldValidation.
import type { SchemaNode } from './compiled-schema.js';

/** The ObjectMeta fields the real server keeps; anything else under metadata is pruned. */
const OBJECT_META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

const RESOURCE_ENVELOPE = new Set(['apiVersion', 'kind', 'metadata']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function join(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

function pruneMetadata(metadata: unknown, path: string, unknown: string[]): void {
  if (!isPlainObject(metadata)) return;
  for (const key of Object.keys(metadata)) {
    if (!OBJECT_META_FIELDS.has(key)) {
      delete metadata[key];
      unknown.push(join(path, key));
    }
  }
}

function pruneValue(value: unknown, node: SchemaNode | undefined, path: string, isResource: boolean, unknown: string[]): void {
  if (node === undefined) return; // under x-kubernetes-preserve-unknown-fields: kept verbatim
  if (Array.isArray(value)) {
    value.forEach((item, i) => pruneValue(item, node.items, `${path}[${i}]`, node.items?.embeddedResource === true, unknown));
    return;
  }
  if (!isPlainObject(value)) return;
  for (const key of Object.keys(value)) {
    const childPath = join(path, key);
    if (isResource && RESOURCE_ENVELOPE.has(key)) {
      if (key === 'metadata') pruneMetadata(value[key], childPath, unknown);
      continue;
    }
    const declared = node.properties?.get(key);
    if (declared !== undefined) {
      pruneValue(value[key], declared, childPath, declared.embeddedResource, unknown);
    } else if (node.additionalProperties !== undefined) {
      pruneValue(value[key], node.additionalProperties, childPath, node.additionalProperties.embeddedResource, unknown);
    } else if (node.schema.additionalProperties === true || node.preserveUnknownFields) {
      continue;
    } else {
      delete value[key];
      unknown.push(childPath);
    }
  }
}

/**
 * Remove undeclared fields from `object` (the resource root) in place and return their
 * paths, sorted as the real server lists them in a strict decoding error.
 */
export function pruneUnknownFields(object: Record<string, unknown>, root: SchemaNode): string[] {
  const unknown: string[] = [];
  pruneValue(object, root, '', true, unknown);
  return unknown.sort();
}
