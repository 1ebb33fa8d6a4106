// Field errors worded like k8s.io/apimachinery's field.Error, so that a Status built from
// them reads exactly like the real kube-apiserver's: `reason` is the cause type
// (FieldValueInvalid, ...), `message` is ErrorBody() and `field` the path string.

export interface FieldCause {
  reason: string;
  message: string;
  field: string;
}

export type CauseReason =
  | 'FieldValueInvalid'
  | 'FieldValueRequired'
  | 'FieldValueNotSupported'
  | 'FieldValueTypeInvalid'
  | 'FieldValueDuplicate'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError';

const typeWords: Record<CauseReason, string> = {
  FieldValueInvalid: 'Invalid value',
  FieldValueRequired: 'Required value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
};

/** The path the real server prints for a nil *field.Path (root-level CEL rules). */
export const ROOT_PATH = '<nil>';

export function childPath(parent: string, name: string): string {
  return parent === '' || parent === ROOT_PATH ? name : `${parent}.${name}`;
}
export function indexPath(parent: string, index: number): string {
  return `${parent === ROOT_PATH ? '' : parent}[${index}]`;
}
export function keyPath(parent: string, key: string): string {
  return `${parent === ROOT_PATH ? '' : parent}[${key}]`;
}

/** Marks a value Go would print with %v (int64, float64, bool) rather than %q or %#v. */
export class GoInt {
  constructor(readonly value: number) {}
}

// Go's %q of a string; JSON's quoting is the same for the printable subset CRDs use.
export function goQuote(text: string): string {
  return JSON.stringify(text);
}

// Go prints an int64 plainly and a float64 with %v, which switches to exponent form
// (at least two exponent digits) below 1e-4 and from 1e6 up.
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return String(n);
  return goFloat(n);
}

export function goFloat(n: number): string {
  if (n === 0 || !Number.isFinite(n)) return String(n);
  const exponent = Math.floor(Math.log10(Math.abs(n)));
  if (exponent < -4 || exponent >= 6) {
    return n.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  }
  return String(n);
}

/** The way field.Error prints a bad value: %v for scalars, %q for strings, %#v otherwise. */
export function goValue(value: unknown): string {
  if (value instanceof GoInt) return String(value.value);
  if (value === null || value === undefined) return '"null"';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return String(value);
  return goSyntax(value);
}

// %#v of unstructured JSON: map[string]interface {}{"a":1}, []interface {}{"x"}.
function goSyntax(value: unknown): string {
  if (Array.isArray(value)) return `[]interface {}{${value.map(goInner).join(', ')}}`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${goQuote(k)}:${goInner((value as Record<string, unknown>)[k])}`);
    return `map[string]interface {}{${entries.join(', ')}}`;
  }
  return goValue(value);
}
function goInner(value: unknown): string {
  if (value === null || value === undefined) return 'interface {}(nil)';
  if (typeof value === 'number') return Number.isInteger(value) ? `${value}` : goNumber(value);
  return goSyntax(value);
}

function cause(reason: CauseReason, field: string, body: string): FieldCause {
  return { reason, field, message: body };
}

function withDetail(head: string, detail: string): string {
  return detail === '' ? head : `${head}: ${detail}`;
}

export function invalid(field: string, value: unknown, detail: string): FieldCause {
  return cause('FieldValueInvalid', field, withDetail(`${typeWords.FieldValueInvalid}: ${goValue(value)}`, detail));
}
export function typeInvalid(field: string, value: unknown, detail: string): FieldCause {
  return cause('FieldValueTypeInvalid', field, withDetail(`${typeWords.FieldValueTypeInvalid}: ${goValue(value)}`, detail));
}
export function required(field: string, detail = ''): FieldCause {
  return cause('FieldValueRequired', field, withDetail(typeWords.FieldValueRequired, detail));
}
export function forbidden(field: string, detail: string): FieldCause {
  return cause('FieldValueForbidden', field, withDetail(typeWords.FieldValueForbidden, detail));
}
export function duplicate(field: string, value: unknown): FieldCause {
  return cause('FieldValueDuplicate', field, `${typeWords.FieldValueDuplicate}: ${goValue(value)}`);
}
export function notSupported(field: string, value: unknown, supported: string[]): FieldCause {
  const detail = supported.length === 0 ? '' : `supported values: ${supported.map(goQuote).join(', ')}`;
  return cause('FieldValueNotSupported', field, withDetail(`${typeWords.FieldValueNotSupported}: ${goValue(value)}`, detail));
}
export function tooLong(field: string, maxLength: number): FieldCause {
  return cause('FieldValueTooLong', field, withDetail(typeWords.FieldValueTooLong, `may not be longer than ${maxLength}`));
}
export function tooMany(field: string, actual: number, max: number): FieldCause {
  return cause('FieldValueTooMany', field, `${typeWords.FieldValueTooMany}: ${actual}: must have at most ${max} items`);
}
export function internalError(field: string, detail: string): FieldCause {
  return cause('InternalError', field, withDetail(typeWords.InternalError, detail));
}

/**
 * The Status `message` the real server builds for a 422:
 * `<Kind>.<group> "<name>" is invalid: <field>: <body>` (one cause) or `[a, b]` (several).
 */
export function formatInvalidMessage(qualifiedKind: string, name: string, causes: readonly FieldCause[]): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const c of causes) {
    const text = `${c.field}: ${c.message}`;
    if (!seen.has(text)) {
      seen.add(text);
      parts.push(text);
    }
  }
  const joined = parts.length === 1 ? (parts[0] ?? '') : `[${parts.join(', ')}]`;
  return `${qualifiedKind} ${goQuote(name)} is invalid: ${joined}`;
}
