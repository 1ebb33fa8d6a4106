// The openAPIV3Schema envelope every resource of the API shares: apiVersion, kind, metadata,
// then the generated spec and status.
import type { JsonSchema } from './structural-schema.js';

export function resourceOpenApiSchema(description: string, spec: JsonSchema, status: JsonSchema): JsonSchema {
  return {
    description,
    type: 'object',
    properties: {
      apiVersion: {
        description: 'APIVersion defines the versioned schema of this representation of an object.',
        type: 'string',
      },
      kind: {
        description: 'Kind is a string value representing the REST resource this object represents.',
        type: 'string',
      },
      metadata: { type: 'object' },
      spec,
      status,
    },
    required: ['spec'],
  };
}
