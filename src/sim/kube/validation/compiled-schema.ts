// A JSONSchemaProps turned once into a tree the hot path can walk cheaply: property maps,
// compiled patterns and compiled CEL programs. Cached by schema object identity, so the
// emulator pays compilation once per CRD version, not once per write.
import type { ParseResult } from '@marcbachmann/cel-js';
import { celEnvironment } from './cel-library.js';
import type { JSONSchemaProps, ValidationRule } from './schema-types.js';

export interface CompiledRule {
  rule: ValidationRule;
  program?: ParseResult;
  messageProgram?: ParseResult;
  usesOldSelf: boolean;
  /** Why the rule (or its messageExpression) does not compile; such a rule fails every write. */
  compileError?: string;
  messageCompileError?: string;
  /** `fieldPath` without its leading dot, e.g. `spec.replicas`. */
  normalizedFieldPath?: string;
}

export interface SchemaNode {
  schema: JSONSchemaProps;
  type: string | undefined;
  nullable: boolean;
  intOrString: boolean;
  preserveUnknownFields: boolean;
  embeddedResource: boolean;
  properties: Map<string, SchemaNode> | undefined;
  additionalProperties: SchemaNode | undefined;
  items: SchemaNode | undefined;
  required: readonly string[];
  pattern: RegExp | undefined;
  allOf: SchemaNode[];
  anyOf: SchemaNode[];
  oneOf: SchemaNode[];
  not: SchemaNode | undefined;
  rules: CompiledRule[];
  /** True when this node or any node below it carries x-kubernetes-validations. */
  hasRulesBelow: boolean;
  /** True when this node or any node below it declares a default. */
  hasDefaultsBelow: boolean;
}

const compiledSchemas = new WeakMap<JSONSchemaProps, SchemaNode>();
const parsedPrograms = new Map<string, ParseResult | string>();

/** Compile `schema` (cached by identity). */
export function compileSchema(schema: JSONSchemaProps): SchemaNode {
  let node = compiledSchemas.get(schema);
  if (node === undefined) {
    node = buildNode(schema);
    compiledSchemas.set(schema, node);
  }
  return node;
}

/**
 * Go's RE2 and JavaScript agree on the syntax CRD patterns use, except for leading inline
 * flags such as `(?i)`, which JavaScript only accepts as RegExp flags.
 */
export function compilePattern(pattern: string): RegExp {
  const inline = /^\(\?([imsU]+)\)/.exec(pattern);
  if (inline === null) return new RegExp(pattern, 'u');
  const flags = [...(inline[1] ?? '')].filter((f) => f === 'i' || f === 'm' || f === 's').join('');
  return new RegExp(pattern.slice(inline[0].length), `u${flags}`);
}

/** Parse and type-check one CEL expression; a string result is the compile error. */
export function parseCel(expression: string): ParseResult | string {
  const cached = parsedPrograms.get(expression);
  if (cached !== undefined) return cached;
  let result: ParseResult | string;
  try {
    const program = celEnvironment().parse(expression);
    const checked = program.check();
    result = checked.valid ? program : (checked.error?.summary ?? checked.error?.message ?? 'type check failed');
  } catch (error) {
    result = errorSummary(error);
  }
  parsedPrograms.set(expression, result);
  return result;
}

export function errorSummary(error: unknown): string {
  if (error !== null && typeof error === 'object' && 'summary' in error && typeof error.summary === 'string') return error.summary;
  if (error instanceof Error) return error.message.split('\n')[0] ?? error.message;
  return String(error);
}

/** Whether the expression reads the identifier `oldSelf` (string literals do not count). */
export function referencesOldSelf(ast: unknown): boolean {
  if (ast === null || typeof ast !== 'object') return false;
  if (Array.isArray(ast)) return ast.some((item) => referencesOldSelf(item));
  const node = ast as { op?: unknown; args?: unknown };
  if (node.op === 'id' && node.args === 'oldSelf') return true;
  if (node.op === 'value') return false;
  if (Array.isArray(node.args)) return node.args.some((arg) => referencesOldSelf(arg));
  return referencesOldSelf(node.args);
}

function compileRule(rule: ValidationRule): CompiledRule {
  const compiled: CompiledRule = { rule, usesOldSelf: false };
  const program = parseCel(rule.rule);
  if (typeof program === 'string') compiled.compileError = program;
  else {
    compiled.program = program;
    compiled.usesOldSelf = referencesOldSelf(program.ast);
  }
  if (rule.messageExpression !== undefined && rule.messageExpression !== '') {
    const message = parseCel(rule.messageExpression);
    if (typeof message === 'string') compiled.messageCompileError = message;
    else compiled.messageProgram = message;
  }
  if (rule.fieldPath !== undefined && rule.fieldPath !== '') {
    compiled.normalizedFieldPath = rule.fieldPath.replace(/^\./, '').replace(/\['([^']*)'\]/g, '.$1');
  }
  return compiled;
}

function buildNode(schema: JSONSchemaProps): SchemaNode {
  const properties = schema.properties === undefined ? undefined : new Map<string, SchemaNode>();
  for (const [name, sub] of Object.entries(schema.properties ?? {})) properties?.set(name, buildNode(sub));
  const additionalProperties =
    typeof schema.additionalProperties === 'object' && schema.additionalProperties !== null ? buildNode(schema.additionalProperties) : undefined;
  const items = schema.items !== undefined && !Array.isArray(schema.items) ? buildNode(schema.items) : undefined;
  let pattern: RegExp | undefined;
  if (schema.pattern !== undefined) {
    try {
      pattern = compilePattern(schema.pattern);
    } catch {
      pattern = undefined; // rejected by validateCrdSchema; never blocks writes here
    }
  }
  const rules = (schema['x-kubernetes-validations'] ?? []).map(compileRule);
  const allOf = (schema.allOf ?? []).map(buildNode);
  const anyOf = (schema.anyOf ?? []).map(buildNode);
  const oneOf = (schema.oneOf ?? []).map(buildNode);
  const not = schema.not === undefined ? undefined : buildNode(schema.not);
  const children = [...(properties?.values() ?? []), ...(additionalProperties ? [additionalProperties] : []), ...(items ? [items] : []), ...allOf];
  return {
    schema,
    type: schema.type,
    nullable: schema.nullable === true,
    intOrString: schema['x-kubernetes-int-or-string'] === true,
    preserveUnknownFields: schema['x-kubernetes-preserve-unknown-fields'] === true,
    embeddedResource: schema['x-kubernetes-embedded-resource'] === true,
    properties,
    additionalProperties,
    items,
    required: schema.required ?? [],
    pattern,
    allOf,
    anyOf,
    oneOf,
    not,
    rules,
    hasRulesBelow: rules.length > 0 || children.some((c) => c.hasRulesBelow),
    hasDefaultsBelow: schema.default !== undefined || children.some((c) => c.hasDefaultsBelow),
  };
}
