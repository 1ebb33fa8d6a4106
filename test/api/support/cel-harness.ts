// Compiles and evaluates the CRD's CEL rules with @marcbachmann/cel-js, the way the API
// server applies them: each rule runs with `self` bound to the value of its node (every
// item for a list node), and a rule using `oldSelf` runs only on updates where the old value
// exists, list-map items correlated by their keys.
import { Environment } from '@marcbachmann/cel-js';
import type { JsonSchema } from '../../../src/api/crd/structural-schema.js';

export interface RuleSite {
  /** Schema path of the node, e.g. `spec.sourceConfig.resourceSpec`. */
  path: string;
  rule: string;
  message: string;
  /** The schema node the rule sits on. */
  node: JsonSchema;
}

export interface Violation {
  path: string;
  message: string;
}

type Value = unknown;

function typeName(path: string): string {
  return `T_${path.replace(/\[\]/g, '_item').replace(/[^A-Za-z0-9]/g, '_')}`;
}

/**
 * An environment whose types mirror the schema, so that a rule naming a field that does not
 * exist, or comparing values of different types, fails to type-check as it would in the API
 * server. Returns the CEL type of `schema`.
 */
function declare(env: Environment, schema: JsonSchema, path: string): string {
  if (schema['x-kubernetes-preserve-unknown-fields'] === true && schema.properties === undefined)
    return 'dyn';
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'array':
      return `list<${schema.items ? declare(env, schema.items, `${path}[]`) : 'dyn'}>`;
    case 'object': {
      if (schema.additionalProperties) {
        return `map<string, ${declare(env, schema.additionalProperties, `${path}{}`)}>`;
      }
      if (schema.properties === undefined) return 'map<string, dyn>';
      const fields: Record<string, string> = {};
      for (const [name, child] of Object.entries(schema.properties))
        fields[name] = declare(env, child, `${path}.${name}`);
      const name = typeName(path);
      env.registerType(name, { fields });
      return name;
    }
    default:
      return 'dyn';
  }
}

export function ruleSites(schema: JsonSchema, path: string, sites: RuleSite[] = []): RuleSite[] {
  for (const rule of schema['x-kubernetes-validations'] ?? []) {
    sites.push({ path, rule: rule.rule, message: rule.message, node: schema });
  }
  if (schema.items) ruleSites(schema.items, `${path}[]`, sites);
  if (schema.additionalProperties) ruleSites(schema.additionalProperties, `${path}{}`, sites);
  for (const [name, child] of Object.entries(schema.properties ?? {}))
    ruleSites(child, `${path}.${name}`, sites);
  return sites;
}

export interface CheckResult {
  site: RuleSite;
  selfType: string;
  valid: boolean;
  type?: string;
  error?: string;
}

/** Type-checks every rule under `schema` against the schema's own types. */
export function typeCheckRules(schema: JsonSchema, rootPath: string): CheckResult[] {
  const base = new Environment();
  declare(base, schema, rootPath);
  return ruleSites(schema, rootPath).map((site) => {
    const selfType = typeOfNode(site.node, site.path);
    const env = base.clone().registerVariable('self', selfType).registerVariable('oldSelf', selfType);
    const result = env.check(site.rule);
    return {
      site,
      selfType,
      valid: result.valid,
      ...(result.type === undefined ? {} : { type: String(result.type) }),
      ...(result.error === undefined ? {} : { error: result.error.message }),
    };
  });
}

/** The CEL type name `declare` gave a node, without registering anything again. */
function typeOfNode(schema: JsonSchema, path: string): string {
  if (schema['x-kubernetes-preserve-unknown-fields'] === true && schema.properties === undefined)
    return 'dyn';
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'array':
      return `list<${schema.items ? typeOfNode(schema.items, `${path}[]`) : 'dyn'}>`;
    case 'object':
      if (schema.additionalProperties)
        return `map<string, ${typeOfNode(schema.additionalProperties, `${path}{}`)}>`;
      return schema.properties === undefined ? 'map<string, dyn>' : typeName(path);
    default:
      return 'dyn';
  }
}

const evaluator = new Environment({ unlistedVariablesAreDyn: true });

function isObject(value: Value): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function correlate(schema: JsonSchema, item: Value, oldList: Value): Value {
  if (schema['x-kubernetes-list-type'] !== 'map' || !Array.isArray(oldList) || !isObject(item))
    return undefined;
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  return oldList.find((old) => isObject(old) && keys.every((key) => old[key] === item[key]));
}

/** Every rule under `schema` that `value` breaks, given the stored `oldValue` on an update. */
export function celViolations(schema: JsonSchema, value: Value, oldValue: Value, path: string): Violation[] {
  if (value === undefined || value === null) return [];
  const violations: Violation[] = [];
  for (const { rule, message } of schema['x-kubernetes-validations'] ?? []) {
    const transition = /\boldSelf\b/.test(rule);
    if (transition && (oldValue === undefined || oldValue === null)) continue;
    let result: unknown;
    try {
      result = evaluator.evaluate(rule, transition ? { self: value, oldSelf: oldValue } : { self: value });
    } catch (error) {
      result = `error: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (result !== true)
      violations.push({ path, message: result === false ? message : `${message} (${String(result)})` });
  }
  if (schema.items && Array.isArray(value)) {
    value.forEach((item, i) => {
      if (schema.items) {
        violations.push(
          ...celViolations(schema.items, item, correlate(schema, item, oldValue), `${path}[${i}]`),
        );
      }
    });
  }
  if (isObject(value)) {
    for (const [name, child] of Object.entries(schema.properties ?? {})) {
      violations.push(
        ...celViolations(
          child,
          value[name],
          isObject(oldValue) ? oldValue[name] : undefined,
          `${path}.${name}`,
        ),
      );
    }
  }
  return violations;
}
