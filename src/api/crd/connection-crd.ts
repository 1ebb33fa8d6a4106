// The PlatformConnection and ClusterPlatformConnection CustomResourceDefinitions, built from
// the zod schemas of src/api/connection like the AgentDeployment's.
import {
  CLUSTER_PLATFORM_CONNECTION,
  CONNECTION_CATEGORIES,
  ClusterPlatformConnectionSpec,
  ConnectionStatus,
  PLATFORM_CONNECTION,
  PlatformConnectionSpec,
  type ConnectionResourceNames,
} from '../connection/index.js';
import type { CustomResourceDefinition, PrinterColumn } from './agentdeployment-crd.js';
import { resourceOpenApiSchema, singleVersionCrd } from './resource-schema.js';
import { type JsonSchema, toStructuralSchema } from './structural-schema.js';

export const CONNECTION_PRINTER_COLUMNS: PrinterColumn[] = [
  {
    name: 'Ready',
    type: 'string',
    jsonPath: '.status.conditions[?(@.type=="Ready")].status',
    description: 'Whether the credential authenticates.',
  },
  {
    name: 'Reachable',
    type: 'string',
    jsonPath: '.status.conditions[?(@.type=="Reachable")].status',
    description: 'Whether the platform API (and the private domain, when set) answers.',
  },
  {
    name: 'Region/URL',
    type: 'string',
    jsonPath: '.status.endpoint',
    description: 'The region, or the self-hosted control-plane URL.',
  },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

const DESCRIPTIONS: Record<ConnectionResourceNames['kind'], string> = {
  PlatformConnection:
    'PlatformConnection says where the platform is and which credential to use, for the objects of its own namespace. Its key Secret is read from the same namespace.',
  ClusterPlatformConnection:
    "ClusterPlatformConnection says where the platform is and which credential to use, for the objects of the namespaces its namespaceSelector matches (none when absent, every namespace with {}). Its key Secret is read from the operator's namespace.",
};

export function connectionOpenApiSchema(names: ConnectionResourceNames): JsonSchema {
  const spec = names.scope === 'Cluster' ? ClusterPlatformConnectionSpec : PlatformConnectionSpec;
  return resourceOpenApiSchema(
    DESCRIPTIONS[names.kind],
    toStructuralSchema(spec, 'spec'),
    toStructuralSchema(ConnectionStatus, 'status'),
  );
}

export function connectionCrd(names: ConnectionResourceNames): CustomResourceDefinition {
  return singleVersionCrd({
    names,
    categories: CONNECTION_CATEGORIES,
    scope: names.scope,
    columns: CONNECTION_PRINTER_COLUMNS,
    openApiSchema: connectionOpenApiSchema(names),
  });
}

export const CONNECTION_RESOURCES = [PLATFORM_CONNECTION, CLUSTER_PLATFORM_CONNECTION] as const;
