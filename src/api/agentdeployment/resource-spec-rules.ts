// The cross-field rules the control plane applies to a ResourceSpec, as CEL rules of the CRD,
// so that `kubectl apply` refuses what the control plane would refuse later (as a Rejected
// condition, after a round trip). The control plane checks them on the spec it is about to
// store: CPU values rounded to one decimal place, queue_* fields defaulted from their base
// field, and a limit left out defaulted to twice its request. The rules compare the same
// values: each side is the field if given, else its default, rounded like the server rounds.
// A limit left out needs no rule (twice a non-negative request is never below it).
import { type CelRule, celRule } from './cel.js';
import type { ResourceSpec } from './resource-spec.js';

type NumericField = {
  [K in keyof ResourceSpec]-?: NonNullable<ResourceSpec[K]> extends number ? K : never;
}[keyof ResourceSpec];

/** `[field, base]`: a field left out takes its base field's value. */
export const RESOURCE_COPY_DEFAULTS: readonly (readonly [NumericField, NumericField])[] = [
  ['queueMinScale', 'minScale'],
  ['queueMaxScale', 'maxScale'],
  ['queueCpu', 'cpu'],
  ['queueMemoryMb', 'memoryMb'],
];

/** `[min, max]`: the minimum may not exceed the maximum. */
export const RESOURCE_SCALE_PAIRS: readonly (readonly [NumericField, NumericField])[] = [
  ['minScale', 'maxScale'],
  ['queueMinScale', 'queueMaxScale'],
];

/** `[limit, request]`: the limit may not be below the request. */
export const RESOURCE_LIMIT_PAIRS: readonly (readonly [NumericField, NumericField])[] = [
  ['cpuLimit', 'cpu'],
  ['memoryLimitMb', 'memoryMb'],
  ['queueCpuLimit', 'queueCpu'],
  ['queueMemoryLimitMb', 'queueMemoryMb'],
  ['cacheCpuLimit', 'cacheCpu'],
  ['dbCpuLimit', 'dbCpu'],
  ['dbMemoryLimitMb', 'dbMemoryMb'],
];

/** Fields in cores: the control plane rounds them to one decimal place before comparing. */
export const RESOURCE_CPU_FIELDS: ReadonlySet<NumericField> = new Set<NumericField>([
  'cpu',
  'cpuLimit',
  'queueCpu',
  'queueCpuLimit',
  'orchestratorCpu',
  'orchestratorCpuLimit',
  'executorCpu',
  'executorCpuLimit',
  'cacheCpu',
  'cacheCpuLimit',
  'dbCpu',
  'dbCpuLimit',
]);

const PREFIX = 'spec.sourceConfig.resourceSpec';

function baseOf(field: NumericField): NumericField | undefined {
  return RESOURCE_COPY_DEFAULTS.find(([defaulted]) => defaulted === field)?.[1];
}

/** CEL: the field, or its default, is there. */
function present(field: NumericField): string {
  const base = baseOf(field);
  return base === undefined ? `has(self.${field})` : `(has(self.${field}) || has(self.${base}))`;
}

/**
 * CEL: the value the control plane compares. A CPU value is compared in tenths of a core,
 * rounded half up like the control plane (`Math.round((v + Number.EPSILON) * 10)`: `int()`
 * truncates, which for the non-negative values the schema allows is floor).
 */
function value(field: NumericField): string {
  const base = baseOf(field);
  const raw = base === undefined ? `self.${field}` : `(has(self.${field}) ? self.${field} : self.${base})`;
  return RESOURCE_CPU_FIELDS.has(field) ? `int((${raw} + 2.220446049250313e-16) * 10.0 + 0.5)` : raw;
}

/** How a field reads in a message: its path, and its default when it has one. */
function named(field: NumericField): string {
  const base = baseOf(field);
  return base === undefined ? `${PREFIX}.${field}` : `${PREFIX}.${field} (default: ${base})`;
}

function scaleRule([min, max]: readonly [NumericField, NumericField]): CelRule {
  // Both queue fields left out copy minScale and maxScale, whose own rule then speaks: this one
  // applies only when the user wrote one of the two, so that one mistake gives one message.
  const written =
    baseOf(min) !== undefined && baseOf(max) !== undefined
      ? `(has(self.${min}) || has(self.${max})) && `
      : '';
  return celRule(
    `!(${written}${present(min)} && ${present(max)}) || ${value(min)} <= ${value(max)}`,
    `${named(min)} must not exceed ${named(max)}`,
    `.${min}`,
  );
}

function limitRule([limit, request]: readonly [NumericField, NumericField]): CelRule {
  const rounded = RESOURCE_CPU_FIELDS.has(limit) ? ', both rounded to one decimal place' : '';
  return celRule(
    `!(has(self.${limit}) && ${present(request)}) || ${value(limit)} >= ${value(request)}`,
    `${named(limit)} must not be below ${named(request)}${rounded}`,
    `.${limit}`,
  );
}

/** Init containers and sidecars run in one pod: their names must differ across both lists too. */
const CONTAINER_NAMES_UNIQUE = celRule(
  `!has(self.initContainers) || !has(self.sidecars) || self.initContainers.all(c, !self.sidecars.exists(s, s.name == c.name))`,
  `${PREFIX}.initContainers[].name and ${PREFIX}.sidecars[].name must differ: they name containers of one pod`,
  '.sidecars',
);

export const RESOURCE_SPEC_RULES: readonly CelRule[] = [
  ...RESOURCE_SCALE_PAIRS.map(scaleRule),
  ...RESOURCE_LIMIT_PAIRS.map(limitRule),
  CONTAINER_NAMES_UNIQUE,
];
