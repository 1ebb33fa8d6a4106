// The value validations kube-openapi runs for a structural schema, with the error
// conversion the apiextensions-apiserver applies (kubeOpenAPIResultToFieldErrors): paths
// read `spec.items[2].name` / `spec.labels.key`, and messages `<path> in body should ...`.
// Ratcheting: on update, a subtree equal to its correlated old value is not re-validated.
import type { SchemaNode } from './compiled-schema.js';
import { deepEqualJson, oldChildByKey, oldListItems, type OldValue } from './correlation.js';
import { GoInt, goFloat, goQuote, invalid, notSupported, required, tooLong, tooMany, typeInvalid, type FieldCause } from './field-errors.js';
import { matchesFormat } from './formats.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** kube-openapi's name for the JSON type of a decoded value. */
function jsonTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'object') return 'object';
  return typeof value; // string, boolean
}

function typeMatches(declared: string, actual: string): boolean {
  return declared === actual || (declared === 'number' && actual === 'integer');
}

function join(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

/** Go prints the bound as an integer when the value is one, as a float64 otherwise. */
function bound(limit: number, value: number): string {
  return Number.isInteger(value) && Number.isInteger(limit) ? String(limit) : goFloat(limit);
}

function enumLabel(allowed: unknown): string {
  return typeof allowed === 'string' ? allowed : JSON.stringify(allowed);
}

function validateNumber(value: number, node: SchemaNode, path: string, causes: FieldCause[]): void {
  const s = node.schema;
  if (s.maximum !== undefined) {
    const exceeds = s.exclusiveMaximum === true ? value >= s.maximum : value > s.maximum;
    if (exceeds) {
      const words = s.exclusiveMaximum === true ? 'less than' : 'less than or equal to';
      causes.push(invalid(path, value, `${path} in body should be ${words} ${bound(s.maximum, value)}`));
    }
  }
  if (s.minimum !== undefined) {
    const below = s.exclusiveMinimum === true ? value <= s.minimum : value < s.minimum;
    if (below) {
      const words = s.exclusiveMinimum === true ? 'greater than' : 'greater than or equal to';
      causes.push(invalid(path, value, `${path} in body should be ${words} ${bound(s.minimum, value)}`));
    }
  }
  if (s.multipleOf !== undefined && s.multipleOf > 0) {
    const quotient = value / s.multipleOf;
    if (Math.abs(quotient - Math.round(quotient)) > 1e-9) {
      causes.push(invalid(path, value, `${path} in body should be a multiple of ${bound(s.multipleOf, value)}`));
    }
  }
}

function validateString(value: string, node: SchemaNode, path: string, causes: FieldCause[]): void {
  const s = node.schema;
  const length = s.maxLength !== undefined || s.minLength !== undefined ? [...value].length : 0;
  if (s.maxLength !== undefined && length > s.maxLength) causes.push(tooLong(path, s.maxLength));
  if (s.minLength !== undefined && length < s.minLength) {
    causes.push(invalid(path, value, `${path} in body should be at least ${s.minLength} chars long`));
  }
  if (node.pattern !== undefined && !node.pattern.test(value)) {
    causes.push(invalid(path, value, `${path} in body should match '${s.pattern ?? ''}'`));
  }
  if (s.format !== undefined && !matchesFormat(s.format, value)) {
    causes.push(typeInvalid(path, value, `${path} in body must be of type ${s.format}: ${goQuote(value)}`));
  }
}

function hasDuplicates(items: readonly unknown[]): boolean {
  const seen = new Set<string>();
  for (const item of items) {
    const key = JSON.stringify(item);
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

function validateArray(value: unknown[], node: SchemaNode, path: string, old: OldValue | undefined, causes: FieldCause[]): void {
  const s = node.schema;
  if (node.items !== undefined) {
    const items = node.items;
    const correlate = oldListItems(node, old);
    value.forEach((item, i) => validateValue(item, items, `${path}[${i}]`, correlate?.(item), causes));
  }
  if (s.minItems !== undefined && value.length < s.minItems) {
    causes.push(invalid(path, value.length, `${path} in body should have at least ${s.minItems} items`));
  }
  if (s.maxItems !== undefined && value.length > s.maxItems) causes.push(tooMany(path, value.length, s.maxItems));
  if (s.uniqueItems === true && hasDuplicates(value)) causes.push(invalid(path, '', `${path} in body shouldn't contain duplicates`));
}

function validateObject(value: Record<string, unknown>, node: SchemaNode, path: string, old: OldValue | undefined, causes: FieldCause[]): void {
  const s = node.schema;
  const keyCount = Object.keys(value).length;
  if (s.maxProperties !== undefined && keyCount > s.maxProperties) causes.push(tooMany(path, keyCount, s.maxProperties));
  if (s.minProperties !== undefined && keyCount < s.minProperties) {
    causes.push(invalid(path, keyCount, `${path} in body should have at least ${s.minProperties} properties`));
  }
  for (const name of node.required) {
    if (!(name in value)) causes.push(required(join(path, name)));
  }
  for (const key of Object.keys(value)) {
    const sub = node.properties?.get(key) ?? node.additionalProperties;
    if (sub !== undefined) validateValue(value[key], sub, join(path, key), oldChildByKey(old, key), causes);
  }
}

function passes(value: unknown, node: SchemaNode, path: string): boolean {
  const probe: FieldCause[] = [];
  validateValue(value, node, path, undefined, probe);
  return probe.length === 0;
}

function validateJunctors(value: unknown, node: SchemaNode, path: string, old: OldValue | undefined, causes: FieldCause[]): void {
  for (const sub of node.allOf) validateValue(value, sub, path, old, causes);
  if (node.anyOf.length > 0 && !node.anyOf.some((sub) => passes(value, sub, path))) {
    causes.push(invalid(path, '', `${path} in body must validate at least one schema (anyOf)`));
  }
  if (node.oneOf.length > 0 && node.oneOf.filter((sub) => passes(value, sub, path)).length !== 1) {
    causes.push(invalid(path, '', `${path} in body must validate one and only one schema (oneOf)`));
  }
  if (node.not !== undefined && passes(value, node.not, path)) {
    causes.push(invalid(path, '', `${path} in body shouldn't validate the schema (not)`));
  }
}

/** Validate one value against its schema node, appending causes. */
export function validateValue(value: unknown, node: SchemaNode, path: string, old: OldValue | undefined, causes: FieldCause[]): void {
  if (old !== undefined && deepEqualJson(value, old.value)) return; // ratcheting: unchanged values stay valid
  const actual = jsonTypeName(value);
  if (value === null && node.nullable) return;
  if (node.intOrString) {
    if (actual !== 'integer' && actual !== 'string') {
      causes.push(typeInvalid(path, actual, `${path} in body must be of type integer,string: ${goQuote(actual)}`));
      return;
    }
  } else if (node.type !== undefined && !typeMatches(node.type, actual)) {
    causes.push(typeInvalid(path, actual, `${path} in body must be of type ${node.type}: ${goQuote(actual)}`));
    return;
  }
  const s = node.schema;
  if (s.enum !== undefined && !s.enum.some((allowed) => deepEqualJson(allowed, value))) {
    causes.push(notSupported(path, typeof value === 'number' && Number.isInteger(value) ? new GoInt(value) : value, s.enum.map(enumLabel)));
  }
  if (typeof value === 'number') validateNumber(value, node, path, causes);
  else if (typeof value === 'string') validateString(value, node, path, causes);
  else if (Array.isArray(value)) validateArray(value, node, path, old, causes);
  else if (isPlainObject(value)) validateObject(value, node, path, old, causes);
  validateJunctors(value, node, path, old, causes);
}
