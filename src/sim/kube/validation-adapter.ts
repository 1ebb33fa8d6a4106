// The one place the server calls the custom-resource validation module
// (src/sim/kube/validation/): schema validation, defaulting, pruning, CEL rules, and the
// structural-schema check of CRDs. Kept as a seam so the server depends on a small
// interface and tests could substitute it.
import type { JsonObject } from './kube-object.js';
import { prepareCustomResource, validateCrdSchema, type JSONSchemaProps } from './validation/index.js';

export interface FieldCause {
  reason: string;
  message: string;
  field: string;
}

export interface ValidateResult {
  object: JsonObject;
  causes: FieldCause[];
  warnings: string[];
  /** fieldValidation=Strict and unknown fields were sent: the 400's `strict decoding error: ...`. */
  strictError?: string;
}

export interface PrepareInput {
  schema: JsonObject;
  object: JsonObject;
  oldObject?: JsonObject;
  fieldValidation: 'Strict' | 'Warn' | 'Ignore';
  subresource?: 'status';
}

export interface CustomResourceValidator {
  prepareCustomResource(input: PrepareInput): ValidateResult;
  validateCrdSchema(schema: JsonObject): FieldCause[];
  /** False for a pass-through validator (objects stored as given). */
  readonly available: boolean;
}

const MODULE_VALIDATOR: CustomResourceValidator = {
  prepareCustomResource: (input) => {
    const result = prepareCustomResource({ ...input, schema: input.schema as JSONSchemaProps });
    return {
      object: result.object,
      causes: result.causes,
      warnings: result.warnings,
      ...(result.strictError === undefined ? {} : { strictError: result.strictError }),
    };
  },
  validateCrdSchema: (schema) => validateCrdSchema(schema as JSONSchemaProps),
  available: true,
};

export function loadCustomResourceValidator(): Promise<CustomResourceValidator> {
  return Promise.resolve(MODULE_VALIDATOR);
}
