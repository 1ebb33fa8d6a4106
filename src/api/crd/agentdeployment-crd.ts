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

const READY_CONDITION = '.status.conditions[?(@.type=="Ready")]';

/**
 * What `kubectl get agd` shows, in the order Flux and Argo CD users expect: Ready and its
 * reason first, then what runs (active revision) and what is on its way (latest revision's
 * state). Short revision ids keep the default table under 100 characters; `-o wide` (priority
 * 1) adds the long values: commit, image version, ids, URL and the Ready message.
 */
export const PRINTER_COLUMNS: PrinterColumn[] = [
  {
    name: 'Ready',
    type: 'string',
    jsonPath: `${READY_CONDITION}.status`,
    description: 'Whether the latest revision of the current spec is the one running.',
  },
  {
    name: 'Status',
    type: 'string',
    jsonPath: `${READY_CONDITION}.reason`,
    description: 'Why: the reason of the Ready condition, for example Deployed or RevisionInProgress.',
  },
  {
    name: 'Revision',
    type: 'string',
    jsonPath: '.status.activeRevision.shortId',
    description:
      'The revision currently deployed (serving), by the first 8 characters of its id (status.activeRevisionId has all of it).',
  },
  {
    name: 'Latest',
    type: 'string',
    jsonPath: '.status.latestRevisionStatus',
    description: 'Status of the newest revision, for example BUILDING, DEPLOYED or DEPLOY_FAILED.',
  },
  {
    name: 'Suspended',
    type: 'boolean',
    jsonPath: '.spec.suspend',
    description: 'Whether the operator holds back its writes to the control plane.',
  },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  {
    name: 'Source',
    type: 'string',
    jsonPath: '.spec.source',
    description: 'Where the agent comes from.',
    priority: 1,
  },
  {
    name: 'Commit',
    type: 'string',
    jsonPath: '.status.activeRevision.commit',
    description: 'The commit the serving revision was built from (repo_host).',
    priority: 1,
  },
  {
    name: 'Image',
    type: 'string',
    jsonPath: '.status.activeRevision.imageVersion',
    description: "The version of the image the serving revision runs (the deployment's image_version).",
    priority: 1,
  },
  {
    name: 'Deployment',
    type: 'string',
    jsonPath: '.status.deploymentId',
    description: 'Id of the deployment on the control plane.',
    priority: 1,
  },
  {
    name: 'Connection',
    type: 'string',
    jsonPath: '.spec.connectionRef.name',
    description: 'The platform connection used (empty: the default connection).',
    priority: 1,
  },
  {
    name: 'URL',
    type: 'string',
    jsonPath: '.status.url',
    description:
      'The address the agent answers on (GET /ok), once its latest revision serves and passed its smoke test if it has one.',
    priority: 1,
  },
  {
    name: 'Message',
    type: 'string',
    jsonPath: `${READY_CONDITION}.message`,
    description: 'The message of the Ready condition.',
    priority: 1,
  },
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
