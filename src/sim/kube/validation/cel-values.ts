// JSON values as CEL sees them under a structural schema: `integer` fields become CEL
// ints (BigInt), `number` fields doubles, int-or-string and schemaless integers ints.
// At the resource root `self.metadata` only exposes name and generateName, as upstream.
import type { SchemaNode } from './compiled-schema.js';

function convertNumber(value: number, node: SchemaNode | undefined): number | bigint {
  if (node?.type === 'number') return value;
  return Number.isInteger(value) ? BigInt(value) : value;
}

/**
 * The objects and lists converted during one validation, by the schema node each was
 * converted under. An update keeps most of the stored object as it was, shared (a /status
 * write its whole spec): converted once, a shared part is the same CEL value as `self` and as
 * `oldSelf`, so the ratcheting check that compares the two (cel-validation.ts) answers at
 * once. Kept for one validation only: held longer, it would be a second copy of every stored
 * object.
 */
export type CelConversions = Map<object, Map<SchemaNode | undefined, unknown>>;

export function toCelValue(
  value: unknown,
  node: SchemaNode | undefined,
  conversions: CelConversions = new Map(),
): unknown {
  if (typeof value === 'number') return convertNumber(value, node);
  if (value === null || typeof value !== 'object') return value;
  let byNode = conversions.get(value);
  const known = byNode?.get(node);
  if (known !== undefined) return known;
  const result = Array.isArray(value)
    ? value.map((item) => toCelValue(item, node?.items, conversions))
    : convertObject(value, node, conversions);
  if (byNode === undefined) {
    byNode = new Map();
    conversions.set(value, byNode);
  }
  byNode.set(node, result);
  return result;
}

function convertObject(
  value: object,
  node: SchemaNode | undefined,
  conversions: CelConversions,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] = toCelValue(child, node?.properties?.get(key) ?? node?.additionalProperties, conversions);
  }
  return out;
}

/** The resource root as a CEL value: apiVersion, kind, metadata.{name,generateName}, the rest. */
export function toCelRoot(
  object: Record<string, unknown>,
  root: SchemaNode,
  conversions: CelConversions = new Map(),
): Record<string, unknown> {
  const celObject: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(object)) {
    if (key !== 'metadata') {
      celObject[key] = toCelValue(child, root.properties?.get(key) ?? root.additionalProperties, conversions);
    }
  }
  const metadata = object['metadata'];
  if (metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata)) {
    const visible: Record<string, unknown> = {};
    const record = metadata as Record<string, unknown>;
    if (typeof record['name'] === 'string') visible['name'] = record['name'];
    if (typeof record['generateName'] === 'string') visible['generateName'] = record['generateName'];
    celObject['metadata'] = visible;
  } else if (metadata !== undefined) {
    celObject['metadata'] = toCelValue(
      metadata,
      root.properties?.get('metadata') ?? root.additionalProperties,
      conversions,
    );
  }
  return celObject;
}
