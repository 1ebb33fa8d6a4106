// JSON values as CEL sees them under a structural schema: `integer` fields become CEL
// ints (BigInt), `number` fields doubles, int-or-string and schemaless integers ints.
// At the resource root `self.metadata` only exposes name and generateName, as upstream.
import type { SchemaNode } from './compiled-schema.js';

function convertNumber(value: number, node: SchemaNode | undefined): number | bigint {
  if (node?.type === 'number') return value;
  return Number.isInteger(value) ? BigInt(value) : value;
}

export function toCelValue(value: unknown, node: SchemaNode | undefined): unknown {
  if (typeof value === 'number') return convertNumber(value, node);
  if (Array.isArray(value)) return value.map((item) => toCelValue(item, node?.items));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      out[key] = toCelValue(child, node?.properties?.get(key) ?? node?.additionalProperties);
    }
    return out;
  }
  return value;
}

/** The resource root as a CEL value: apiVersion, kind, metadata.{name,generateName}, the rest. */
export function toCelRoot(object: Record<string, unknown>, root: SchemaNode): Record<string, unknown> {
  const converted = toCelValue(object, root) as Record<string, unknown>;
  const metadata = object['metadata'];
  if (metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata)) {
    const visible: Record<string, unknown> = {};
    const record = metadata as Record<string, unknown>;
    if (typeof record['name'] === 'string') visible['name'] = record['name'];
    if (typeof record['generateName'] === 'string') visible['generateName'] = record['generateName'];
    converted['metadata'] = visible;
  }
  return converted;
}
