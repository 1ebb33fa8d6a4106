import { prepareCustomResource, type JSONSchemaProps, type ValidateResult } from '../../../src/sim/kube/validation/index.js';

/** A resource schema with the given `spec` schema (root shaped like a generated CRD's). */
export function resourceSchema(spec: JSONSchemaProps, extra: Record<string, JSONSchemaProps> = {}): JSONSchemaProps {
  return { type: 'object', properties: { spec, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, ...extra } };
}

export function resource(spec: unknown, rest: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec, ...rest };
}

export function prepare(
  schema: JSONSchemaProps,
  object: Record<string, unknown>,
  options: { oldObject?: Record<string, unknown>; fieldValidation?: 'Strict' | 'Warn' | 'Ignore'; subresource?: 'status' } = {},
): ValidateResult {
  return prepareCustomResource({ schema, object, fieldValidation: options.fieldValidation ?? 'Ignore', oldObject: options.oldObject, subresource: options.subresource });
}

/** `field: message` lines, the way the real server joins them in a Status message. */
export function causeLines(result: ValidateResult): string[] {
  return result.causes.map((c) => `${c.field}: ${c.message}`);
}
