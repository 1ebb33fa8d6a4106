// What the server does to a valid ResourceSpec before storing it: CPU values rounded to
// one decimal place (bounds were already checked on the raw value by the schema), then
// the spec's defaults filled in: a limit left unset is 2x its request, and the queue_*
// fields take their base field's value.
import { CPU_FIELDS, ResourceSpec } from './schemas/index.js';

type Spec = ResourceSpec;
type NumericField = {
  [K in keyof Spec]-?: NonNullable<Spec[K]> extends number ? K : never;
}[keyof Spec];

/** Every ResourceSpec field, in the spec's order, so responses show each one (null when unset). */
export const RESOURCE_SPEC_FIELDS = Object.keys(ResourceSpec.shape) as (keyof Spec)[];

export function roundCpu(value: number): number {
  return Math.round((value + Number.EPSILON) * 10) / 10;
}

/** [field, base field]: the field defaults to the base field's value. */
const COPY_DEFAULTS: [NumericField, NumericField][] = [
  ['queue_min_scale', 'min_scale'],
  ['queue_max_scale', 'max_scale'],
  ['queue_cpu', 'cpu'],
  ['queue_memory_mb', 'memory_mb'],
];

/**
 * [limit, request]: the limit defaults to twice the request (applied after COPY_DEFAULTS),
 * and may not be below it (resource-spec-rules.ts).
 */
export const LIMIT_REQUEST_PAIRS: [NumericField, NumericField][] = [
  ['cpu_limit', 'cpu'],
  ['memory_limit_mb', 'memory_mb'],
  ['queue_cpu_limit', 'queue_cpu'],
  ['queue_memory_limit_mb', 'queue_memory_mb'],
  ['cache_cpu_limit', 'cache_cpu'],
  ['db_cpu_limit', 'db_cpu'],
  ['db_memory_limit_mb', 'db_memory_mb'],
];

export function applyResourceSpecDefaults(input: Spec): Spec {
  const spec: Spec = { ...input };
  for (const field of CPU_FIELDS) {
    const value = spec[field];
    if (typeof value === 'number') spec[field] = roundCpu(value);
  }
  for (const [field, base] of COPY_DEFAULTS) {
    const baseValue = spec[base];
    if (spec[field] == null && baseValue != null) spec[field] = baseValue;
  }
  for (const [limit, request] of LIMIT_REQUEST_PAIRS) {
    const requestValue = spec[request];
    if (spec[limit] == null && requestValue != null) {
      spec[limit] = (CPU_FIELDS as readonly string[]).includes(limit)
        ? roundCpu(requestValue * 2)
        : requestValue * 2;
    }
  }
  return spec;
}

/** The stored spec as the wire shows it: every field present, null when unset. */
export function resourceSpecToWire(spec: Spec): Record<string, unknown> {
  const wire: Record<string, unknown> = {};
  for (const field of RESOURCE_SPEC_FIELDS) wire[field] = spec[field] ?? null;
  return wire;
}
