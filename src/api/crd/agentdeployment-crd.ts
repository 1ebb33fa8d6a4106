// The AgentDeployment CustomResourceDefinition object (apiextensions.k8s.io/v1), built from
// the zod schemas of src/api/agentdeployment. Nothing here restates a field: names come from
// names.ts, the schema from the zod types.
import { AgentDeploymentSpec, AgentDeploymentStatus } from '../agentdeployment/index.js';
import {
  CATEGORIES,
  CRD_NAME,
  GROUP,
  KIND,
  LIST_KIND,
  PLURAL,
  SHORT_NAMES,
  SINGULAR,
  VERSION,
} from '../agentdeployment/names.js';
import { resourceOpenApiSchema } from './resource-schema.js';
import { type JsonSchema, toStructuralSchema } from './structural-schema.js';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string };
  spec: {
    group: string;
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames: string[];
      categories: string[];
    };
    scope: 'Namespaced' | 'Cluster';
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      subresources: { status: Record<string, never> };
      additionalPrinterColumns: PrinterColumn[];
      schema: { openAPIV3Schema: JsonSchema };
    }[];
  };
}

export const PRINTER_COLUMNS: PrinterColumn[] = [
  { name: 'Source', type: 'string', jsonPath: '.spec.source', description: 'Where the agent comes from.' },
  {
    name: 'Status',
    type: 'string',
    jsonPath: '.status.deploymentStatus',
    description: 'Status of the deployment on the control plane.',
  },
  {
    name: 'Active',
    type: 'string',
    jsonPath: '.status.activeRevisionId',
    description: 'The revision currently deployed.',
    priority: 0,
  },
  {
    name: 'Ready',
    type: 'string',
    jsonPath: '.status.conditions[?(@.type=="Ready")].status',
    description: 'Whether the active revision matches the spec.',
  },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

/** The openAPIV3Schema of the one version: the envelope around the generated spec and status. */
export function agentDeploymentOpenApiSchema(): JsonSchema {
  return resourceOpenApiSchema(
    'AgentDeployment runs an AI agent on the deployment control plane as declared, and reports in status what runs.',
    toStructuralSchema(AgentDeploymentSpec, 'spec'),
    toStructuralSchema(AgentDeploymentStatus, 'status'),
  );
}

export function agentDeploymentCrd(): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: CRD_NAME },
    spec: {
      group: GROUP,
      names: {
        kind: KIND,
        listKind: LIST_KIND,
        plural: PLURAL,
        singular: SINGULAR,
        shortNames: [...SHORT_NAMES],
        categories: [...CATEGORIES],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: PRINTER_COLUMNS,
          schema: { openAPIV3Schema: agentDeploymentOpenApiSchema() },
        },
      ],
    },
  };
}
