// What every resource of the API shares: the openAPIV3Schema envelope (apiVersion, kind,
// metadata, then the generated spec and status), and the CRD around one served version.
import { GROUP, VERSION } from '../agentdeployment/names.js';
import type { CustomResourceDefinition, PrinterColumn } from './agentdeployment-crd.js';
import type { JsonSchema } from './structural-schema.js';

export interface SingleVersionResource {
  names: {
    kind: string;
    listKind: string;
    plural: string;
    singular: string;
    shortNames: readonly string[];
  };
  categories: readonly string[];
  scope: 'Namespaced' | 'Cluster';
  columns: PrinterColumn[];
  openApiSchema: JsonSchema;
}

/** A CRD of the group with one served, stored version and a status subresource. */
export function singleVersionCrd(resource: SingleVersionResource): CustomResourceDefinition {
  const { names } = resource;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      names: {
        kind: names.kind,
        listKind: names.listKind,
        plural: names.plural,
        singular: names.singular,
        shortNames: [...names.shortNames],
        categories: [...resource.categories],
      },
      scope: resource.scope,
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: resource.columns,
          schema: { openAPIV3Schema: resource.openApiSchema },
        },
      ],
    },
  };
}

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
