// Evaluation of x-kubernetes-validations rules, walking the object like the
// apiextensions-apiserver's CEL validator: rules run on every non-null value their schema
// node covers, transition rules (those reading oldSelf) only where a correlated old value
// exists (or with optionalOldSelf), and failures of unchanged values are ratcheted into
// warnings. Errors read `Invalid value: "object": <message>` at the node's field path.
import { Optional } from '@marcbachmann/cel-js';
import type { CompiledRule, SchemaNode } from './compiled-schema.js';
import { errorSummary } from './compiled-schema.js';
import { deepEqualJson, oldChildByKey, oldListItems, type OldValue } from './correlation.js';
import { childPath, duplicate, forbidden, indexPath, invalid, keyPath, required, type FieldCause } from './field-errors.js';

export interface CelOutcome {
  causes: FieldCause[];
  warnings: string[];
}

function ruleErrorString(rule: CompiledRule['rule']): string {
  return rule.message !== undefined && rule.message.trim() !== '' ? rule.message.trim() : rule.rule.trim();
}

function ruleMessageOrDefault(rule: CompiledRule['rule']): string {
  return rule.message !== undefined && rule.message !== '' ? rule.message : `failed rule: ${ruleErrorString(rule)}`;
}

function errorForReason(reason: string | undefined, path: string, typeName: string, detail: string): FieldCause {
  switch (reason) {
    case 'FieldValueForbidden':
      return forbidden(path, detail);
    case 'FieldValueRequired':
      return required(path, detail);
    case 'FieldValueDuplicate':
      return duplicate(path, typeName);
    default:
      return invalid(path, typeName, detail);
  }
}

function evaluationErrorDetail(error: unknown, rule: CompiledRule['rule']): string {
  const summary = errorSummary(error);
  if (/no such overload|no matching overload/i.test(summary)) {
    return `'no such overload': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`;
  }
  const lowered = summary.charAt(0).toLowerCase() + summary.slice(1);
  return `${lowered} evaluating rule: ${ruleErrorString(rule)}`;
}

function messageFromExpression(compiled: CompiledRule, activation: Record<string, unknown>): string | undefined {
  if (compiled.messageProgram === undefined) return undefined;
  try {
    const message: unknown = compiled.messageProgram(activation);
    if (typeof message !== 'string' || message.trim() === '' || message.includes('\n')) return undefined;
    return message;
  } catch {
    return undefined; // upstream logs and falls back to message / the default
  }
}

interface Walk {
  causes: FieldCause[];
  warnings: string[];
  /**
   * A /status write: outside status and metadata the object is the stored one, and the
   * caller drops the causes found there (index.ts). A transition rule can only add a cause,
   * so there it is not evaluated at all; a rule without oldSelf still runs, for its
   * ratcheted warning.
   */
  statusWrite: boolean;
}

/** Where a /status write's causes count: the status, the metadata, the object as a whole. */
const COUNTED_IN_STATUS_WRITES: ReadonlySet<string> = new Set(['status', 'metadata']);

function runRules(node: SchemaNode, value: unknown, old: OldValue | undefined, path: string, walk: Walk, uncounted: boolean): void {
  const typeName = node.type ?? '';
  const unchanged = old !== undefined && deepEqualJson(value, old.value);
  for (const compiled of node.rules) {
    if (uncounted && compiled.usesOldSelf) continue;
    if (compiled.compileError !== undefined) {
      walk.causes.push(invalid(path, typeName, `rule compile error: ${compiled.compileError}`));
      continue;
    }
    const program = compiled.program;
    if (program === undefined) continue;
    const optionalOldSelf = compiled.rule.optionalOldSelf === true;
    if (compiled.usesOldSelf && old === undefined && !optionalOldSelf) continue;
    const activation: Record<string, unknown> = { self: value };
    if (optionalOldSelf) activation['oldSelf'] = old === undefined ? Optional.none() : Optional.of(old.value);
    else if (old !== undefined) activation['oldSelf'] = old.value;
    let result: unknown;
    try {
      result = program(activation);
    } catch (error) {
      walk.causes.push(invalid(path, typeName, evaluationErrorDetail(error, compiled.rule)));
      continue;
    }
    if (result === true) continue;
    const target = compiled.normalizedFieldPath === undefined ? path : childPath(path, compiled.normalizedFieldPath);
    const detail = messageFromExpression(compiled, activation) ?? ruleMessageOrDefault(compiled.rule);
    const cause = errorForReason(compiled.rule.reason, target, typeName, detail);
    if (!compiled.usesOldSelf && unchanged) walk.warnings.push(`${cause.field}: ${cause.message}`);
    else walk.causes.push(cause);
  }
}

/**
 * `uncounted`: the value lies where a /status write's causes are dropped (Walk.statusWrite).
 * `root`: the value is the object itself, whose top-level keys decide that.
 */
function walkValue(
  node: SchemaNode,
  value: unknown,
  old: OldValue | undefined,
  path: string,
  walk: Walk,
  uncounted: boolean,
  root = false,
): void {
  if (!node.hasRulesBelow || value === null || value === undefined) return;
  runRules(node, value, old, path, walk, uncounted);
  for (const sub of node.allOf) walkValue(sub, value, old, path, walk, uncounted, root);
  if (Array.isArray(value)) {
    const items = node.items;
    if (items === undefined) return;
    const correlate = oldListItems(node, old);
    value.forEach((item, i) => walkValue(items, item, correlate?.(item), indexPath(path, i), walk, uncounted));
    return;
  }
  if (typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const below = uncounted || (root && walk.statusWrite && !COUNTED_IN_STATUS_WRITES.has(key));
    const declared = node.properties?.get(key);
    if (declared !== undefined) walkValue(declared, record[key], oldChildByKey(old, key), childPath(path, key), walk, below);
    else if (node.additionalProperties !== undefined) {
      walkValue(node.additionalProperties, record[key], oldChildByKey(old, key), keyPath(path, key), walk, below);
    }
  }
}

/**
 * Evaluate every rule under `root` against CEL-converted values (see toCelRoot); for a
 * /status write (`statusWrite`), every rule whose outcome can count (Walk.statusWrite).
 */
export function validateCelRules(
  root: SchemaNode,
  celObject: unknown,
  celOldObject: unknown,
  rootPath: string,
  statusWrite = false,
): CelOutcome {
  const walk: Walk = { causes: [], warnings: [], statusWrite };
  walkValue(root, celObject, celOldObject === undefined ? undefined : { value: celOldObject }, rootPath, walk, false, true);
  return { causes: walk.causes, warnings: walk.warnings };
}
