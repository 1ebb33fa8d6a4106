// Validates a spec the way the API server would with the generated CRD: the zod schema
// (types, enums, bounds, defaults) and then the CEL rules carried by the same schema,
// evaluated with @marcbachmann/cel-js. The operator uses it to report InvalidSpec when an
// object reached it without that admission (an older CRD installed, an emulator, a restore).
// Problems name the field and the rule; they never quote a value, which could be a secret.
import { Environment } from '@marcbachmann/cel-js';
import { AgentDeploymentSpec } from '../agentdeployment/index.js';
import { agentDeploymentOpenApiSchema } from '../crd/agentdeployment-crd.js';
import type { JsonSchema } from '../crd/structural-schema.js';

export interface SpecProblem {
  /** Path of the offending field, e.g. `spec.sourceConfig.resourceSpec.cpu`. */
  field: string;
  message: string;
}

interface CompiledRule {
  message: string;
  fieldPath: string | undefined;
  usesOldSelf: boolean;
  evaluate: (context: Record<string, unknown>) => unknown;
}

interface RuleNode {
  rules: CompiledRule[];
  items?: RuleNode;
  listMapKeys?: string[];
  properties: Map<string, RuleNode>;
}

const environment = new Environment({ unlistedVariablesAreDyn: true });

/** Keeps only the schema nodes that carry rules, or lead to one. */
function compileRules(schema: JsonSchema): RuleNode | undefined {
  const rules = (schema['x-kubernetes-validations'] ?? []).map((rule) => {
    const program = environment.parse(rule.rule);
    return {
      message: rule.message,
      fieldPath: rule.fieldPath,
      usesOldSelf: /\boldSelf\b/.test(rule.rule),
      evaluate: (context: Record<string, unknown>) => program(context),
    };
  });
  const properties = new Map<string, RuleNode>();
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const compiled = compileRules(child);
    if (compiled) properties.set(name, compiled);
  }
  const items = schema.items ? compileRules(schema.items) : undefined;
  if (rules.length === 0 && properties.size === 0 && !items) return undefined;
  return {
    rules,
    properties,
    ...(items ? { items } : {}),
    ...(schema['x-kubernetes-list-map-keys'] ? { listMapKeys: schema['x-kubernetes-list-map-keys'] } : {}),
  };
}

let specRules: RuleNode | undefined | null = null;
function rulesOfSpec(): RuleNode | undefined {
  if (specRules === null) {
    const spec = agentDeploymentOpenApiSchema().properties?.spec;
    specRules = spec ? compileRules(spec) : undefined;
  }
  return specRules;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The old item a list-map item corresponds to, as the API server correlates them. */
function correlatedItem(node: RuleNode, item: unknown, oldList: unknown): unknown {
  if (!node.listMapKeys || !Array.isArray(oldList) || !isObject(item)) return undefined;
  const keys = node.listMapKeys;
  return oldList.find((old) => isObject(old) && keys.every((key) => old[key] === item[key]));
}

function evaluate(node: RuleNode, value: unknown, old: unknown, path: string, problems: SpecProblem[]): void {
  if (value === undefined || value === null) return;
  for (const rule of node.rules) {
    if (rule.usesOldSelf && (old === undefined || old === null)) continue;
    let passed = false;
    try {
      passed = rule.evaluate(rule.usesOldSelf ? { self: value, oldSelf: old } : { self: value }) === true;
    } catch {
      passed = false; // the API server also rejects a value on which a rule cannot be evaluated
    }
    if (!passed) problems.push({ field: path + (rule.fieldPath ?? ''), message: rule.message });
  }
  if (node.items && Array.isArray(value)) {
    const items = node.items;
    value.forEach((item, i) =>
      evaluate(items, item, correlatedItem(node, item, old), `${path}[${i}]`, problems),
    );
  }
  if (isObject(value)) {
    for (const [name, child] of node.properties) {
      evaluate(child, value[name], isObject(old) ? old[name] : undefined, `${path}.${name}`, problems);
    }
  }
}

function zodPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, step) => (typeof step === 'number' ? `${out}[${step}]` : `${out}.${String(step)}`),
    'spec',
  );
}

/**
 * Every problem of `spec` (and, with `oldSpec`, of the change from it), or an empty list.
 * Schema problems come first; the CEL rules run only on a spec that has the right shape.
 */
export function validateAgentDeploymentSpec(spec: unknown, oldSpec?: unknown): SpecProblem[] {
  const parsed = AgentDeploymentSpec.safeParse(spec);
  if (!parsed.success) {
    return parsed.error.issues.map((issue) => ({ field: zodPath(issue.path), message: issue.message }));
  }
  const old = oldSpec === undefined ? undefined : AgentDeploymentSpec.safeParse(oldSpec);
  const problems: SpecProblem[] = [];
  const rules = rulesOfSpec();
  if (rules) evaluate(rules, parsed.data, old?.success ? old.data : undefined, 'spec', problems);
  return problems;
}
