// What the control plane will store for a ResourceSpec, computed from the spec's own rules
// (docs/api/control-plane.md, "Resource spec"): CPU rounded to one decimal place, a limit that is
// not set defaults to twice its request, and queue_* fields default from their base field.
// Comparing the observed spec with this normalised form is what lets the operator tell a
// real difference from the server's defaulting.
import { CPU_FIELDS, type ResourceSpec } from '../../controlplane/models/index.js';
import { isUnset } from '../../runtime/equal-ignoring-unset.js';

type NumericKey = {
  [K in keyof ResourceSpec]-?: NonNullable<ResourceSpec[K]> extends number ? K : never;
}[keyof ResourceSpec];

/** `[target, source]`: when target is unset, it takes the source's value. Order matters: bases first. */
const COPY_DEFAULTS: ReadonlyArray<readonly [NumericKey, NumericKey]> = [
  ['queue_min_scale', 'min_scale'],
  ['queue_max_scale', 'max_scale'],
  ['queue_cpu', 'cpu'],
  ['queue_memory_mb', 'memory_mb'],
];

/** `[limit, request]`: when the limit is unset, it is twice the request. */
const DOUBLE_DEFAULTS: ReadonlyArray<readonly [NumericKey, NumericKey]> = [
  ['cpu_limit', 'cpu'],
  ['memory_limit_mb', 'memory_mb'],
  ['queue_cpu_limit', 'queue_cpu'],
  ['queue_memory_limit_mb', 'queue_memory_mb'],
  ['cache_cpu_limit', 'cache_cpu'],
  ['db_cpu_limit', 'db_cpu'],
  ['db_memory_limit_mb', 'db_memory_mb'],
];

export function roundCpu(value: number): number {
  return Math.round(value * 10) / 10;
}

export function normalizeResourceSpec(spec: ResourceSpec): ResourceSpec {
  const result: ResourceSpec = { ...spec };
  for (const field of CPU_FIELDS) {
    const value = result[field];
    if (typeof value === 'number') result[field] = roundCpu(value);
  }
  for (const [target, source] of COPY_DEFAULTS) {
    if (isUnset(result[target]) && !isUnset(result[source])) result[target] = result[source];
  }
  for (const [limit, request] of DOUBLE_DEFAULTS) {
    const base = result[request];
    if (isUnset(result[limit]) && typeof base === 'number') {
      const doubled = base * 2;
      result[limit] = (CPU_FIELDS as readonly string[]).includes(limit) ? roundCpu(doubled) : doubled;
    }
  }
  return result;
}
