// Custom-resource admission as the apiextensions-apiserver performs it, for the Kubernetes
// API server emulator: prune undeclared fields (reporting them for fieldValidation), drop
// disallowed nulls, apply defaults, then validate (schema keywords, list types, CEL rules).
//
// How the HTTP layer maps the result (see docs/kube-emulator-validation.md):
//   strictError set          -> 400 BadRequest, message = strictError (nothing else applies)
//   causes non-empty         -> 422 Invalid, details.causes = causes
//   otherwise                -> store `object`; send each of `warnings` as a Warning header
import { cloneJsonValue } from '../../json-clone.js';
import { compileSchema, type SchemaNode } from './compiled-schema.js';
import { toCelRoot, type CelConversions } from './cel-values.js';
import { validateCelRules } from './cel-validation.js';
import { applyDefaults, pruneNonNullableNullsWithoutDefaults } from './defaulting.js';
import { ROOT_PATH, type FieldCause } from './field-errors.js';
import { validateListTypes } from './list-type-validation.js';
import { validateValue } from './openapi-validation.js';
import { pruneUnknownFields } from './pruning.js';
import type { JSONSchemaProps } from './schema-types.js';

export type { FieldCause } from './field-errors.js';
export { formatInvalidMessage } from './field-errors.js';
export type { JSONSchemaProps, ValidationRule } from './schema-types.js';
export { validateCrdSchema } from './structural-schema.js';
export { KUBERNETES_CEL_FUNCTIONS } from './cel-library.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface PrepareInput {
  /** The version's openAPIV3Schema from the CRD. Keep the same object between calls: compilation is cached by identity. */
  schema: JSONSchemaProps;
  /** Incoming object (apiVersion/kind/metadata already set). Not mutated. */
  object: Record<string, unknown>;
  /** Stored object on updates: enables transition rules (oldSelf) and ratcheting. */
  oldObject?: Record<string, unknown>;
  fieldValidation: FieldValidation;
  /** 'status' for writes to the /status subresource. */
  subresource?: 'status';
}

export interface ValidateResult {
  /** The pruned, defaulted object to store (for /status: the old object with the new status). */
  object: Record<string, unknown>;
  /** Non-empty means 422 Invalid. */
  causes: FieldCause[];
  /** Warning texts (fieldValidation=Warn unknown fields, ratcheted CEL failures). */
  warnings: string[];
  /** Paths of the fields pruned because the schema does not declare them, e.g. `spec.foo`. */
  unknownFields: string[];
  /**
   * Set with fieldValidation=Strict when unknown fields were sent: the exact message of the
   * real server's 400 BadRequest (`strict decoding error: unknown field "spec.foo", ...`).
   * When set, `causes` is empty: decoding fails before validation.
   */
  strictError?: string;
}

/**
 * For /status writes only the status (and metadata) of the incoming object count. The rest is
 * the stored object's own, shared rather than copied: stored objects are replaced, never
 * changed in place (writes.ts builds every new version by spreading the old one), and nothing
 * here writes to it.
 */
function mergeStatusWrite(incoming: Record<string, unknown>, old: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...old };
  if ('metadata' in incoming) merged['metadata'] = incoming['metadata'];
  if ('status' in incoming) merged['status'] = incoming['status'];
  else delete merged['status'];
  return merged;
}

function isOutsideStatus(field: string): boolean {
  const head = field.split(/[.[]/, 1)[0] ?? '';
  return head !== 'status' && head !== 'metadata' && head !== ROOT_PATH;
}

/**
 * Schema errors after which the real server does not evaluate CEL rules (its hasBlockingErr):
 * a rule over a missing or mistyped field would only fail with "no such key" noise.
 */
const BLOCKING_REASONS: ReadonlySet<string> = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

export const RULES_NOT_CHECKED: FieldCause = {
  reason: 'FieldValueInvalid',
  field: ROOT_PATH,
  message:
    'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
};

function runValidation(
  root: SchemaNode,
  object: Record<string, unknown>,
  old: Record<string, unknown> | undefined,
  statusWrite: boolean,
): { causes: FieldCause[]; warnings: string[] } {
  const causes: FieldCause[] = [];
  validateValue(object, root, '', old === undefined ? undefined : { value: old }, causes);
  validateListTypes(object, root, '', causes);
  const warnings: string[] = [];
  if (root.hasRulesBelow && causes.some((cause) => BLOCKING_REASONS.has(cause.reason))) {
    causes.push(RULES_NOT_CHECKED);
  } else if (root.hasRulesBelow) {
    // One set of conversions for both: the parts the write kept are one CEL value on each side.
    const conversions: CelConversions = new Map();
    const celOld = old === undefined ? undefined : toCelRoot(old, root, conversions);
    const cel = validateCelRules(root, toCelRoot(object, root, conversions), celOld, ROOT_PATH, statusWrite);
    causes.push(...cel.causes);
    warnings.push(...cel.warnings);
  }
  return { causes, warnings };
}

/** Prune, default and validate a custom resource write. */
export function prepareCustomResource(input: PrepareInput): ValidateResult {
  const root = compileSchema(input.schema);
  const incoming = cloneJsonValue(input.object);
  const unknownFields = pruneUnknownFields(incoming, root);
  const warnings: string[] = [];
  if (unknownFields.length > 0 && input.fieldValidation === 'Strict') {
    const strictError = `strict decoding error: ${unknownFields.map((f) => `unknown field "${f}"`).join(', ')}`;
    return { object: incoming, causes: [], warnings, unknownFields, strictError };
  }
  if (input.fieldValidation === 'Warn') for (const f of unknownFields) warnings.push(`unknown field "${f}"`);

  pruneNonNullableNullsWithoutDefaults(incoming, root);
  applyDefaults(incoming, root);

  const isStatusWrite = input.subresource === 'status' && input.oldObject !== undefined;
  const object = isStatusWrite && input.oldObject !== undefined ? mergeStatusWrite(incoming, input.oldObject) : incoming;
  const validation = runValidation(root, object, input.oldObject, isStatusWrite);
  // A status write keeps the stored spec, so problems outside status are not the writer's.
  const causes = isStatusWrite ? validation.causes.filter((c) => !isOutsideStatus(c.field)) : validation.causes;
  warnings.push(...validation.warnings);
  return { object, causes, warnings, unknownFields };
}
