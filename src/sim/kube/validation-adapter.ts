// The one place the server calls the custom-resource validation module
// (src/sim/kube/validation/, built alongside). Loaded once at start; until that module
// exists the emulator stores custom resources unvalidated rather than failing to start.
import type { JsonObject } from './kube-object.js';

export interface FieldCause {
  reason: string;
  message: string;
  field: string;
}

export interface ValidateResult {
  object: JsonObject;
  causes: FieldCause[];
  warnings: string[];
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
  /** False when the validation module could not be loaded (objects are stored as given). */
  readonly available: boolean;
}

const PASS_THROUGH: CustomResourceValidator = {
  prepareCustomResource: (input) => ({ object: input.object, causes: [], warnings: [] }),
  validateCrdSchema: () => [],
  available: false,
};

interface ValidationModule {
  prepareCustomResource(input: PrepareInput): ValidateResult;
  validateCrdSchema(schema: JsonObject): FieldCause[];
}

function isValidationModule(value: unknown): value is ValidationModule {
  const candidate = value as Partial<ValidationModule> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.prepareCustomResource === 'function' &&
    typeof candidate.validateCrdSchema === 'function'
  );
}

let loaded: Promise<CustomResourceValidator> | undefined;

export function loadCustomResourceValidator(): Promise<CustomResourceValidator> {
  loaded ??= (async () => {
    // A computed specifier keeps the type checker from requiring the module to exist.
    const specifier = './validation/index.js';
    try {
      const module: unknown = await import(specifier);
      if (!isValidationModule(module)) return PASS_THROUGH;
      return {
        prepareCustomResource: (input) => module.prepareCustomResource(input),
        validateCrdSchema: (schema) => module.validateCrdSchema(schema),
        available: true,
      };
    } catch {
      return PASS_THROUGH;
    }
  })();
  return loaded;
}
