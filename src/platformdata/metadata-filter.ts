// A metadata match (ANY pair, as trace delete's metadata form has it) in the platform's filter
// language: `and(eq(metadata_key, "k"), eq(metadata_value, "v"))` per pair, `or(...)` of pairs.
import type { Metadata } from './platform-data-client.js';

function literal(value: string | number | boolean): string {
  return JSON.stringify(String(value));
}

export function metadataFilter(metadata: Metadata): string {
  const pairs = Object.entries(metadata).map(
    ([key, value]) => `and(eq(metadata_key, ${literal(key)}), eq(metadata_value, ${literal(value)}))`,
  );
  if (pairs.length === 0) throw new Error('metadata must hold at least one key/value pair');
  return pairs.length === 1 ? (pairs[0] ?? '') : `or(${pairs.join(', ')})`;
}
