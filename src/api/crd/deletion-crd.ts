// The TraceDeletion and ExampleDeletion CustomResourceDefinitions, built from the zod schemas
// of src/api/deletion like the AgentDeployment's.
import type { z } from 'zod';
import {
  DELETION_CATEGORIES,
  EXAMPLE_DELETION,
  ExampleDeletionSpec,
  ExampleDeletionStatus,
  TRACE_DELETION,
  TraceDeletionSpec,
  TraceDeletionStatus,
  type DeletionResourceNames,
} from '../deletion/index.js';
import type { CustomResourceDefinition, PrinterColumn } from './agentdeployment-crd.js';
import { resourceOpenApiSchema, singleVersionCrd } from './resource-schema.js';
import { toStructuralSchema } from './structural-schema.js';

interface DeletionResource {
  names: DeletionResourceNames;
  description: string;
  spec: z.ZodType;
  status: z.ZodType;
  columns: PrinterColumn[];
}

const PHASE: PrinterColumn = { name: 'Phase', type: 'string', jsonPath: '.status.phase' };
const AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
/** A dry run ends Completed too: the column tells it from a deletion at a glance. */
const DRY_RUN: PrinterColumn = {
  name: 'DryRun',
  type: 'boolean',
  jsonPath: '.spec.dryRun',
  description: 'Counts what it would delete; deletes nothing.',
};

export const TRACE_DELETION_RESOURCE: DeletionResource = {
  names: TRACE_DELETION,
  description:
    'TraceDeletion deletes traces on the platform (by session and ids, or by metadata) in batches of at most 1000, then verifies that the platform removed them. Job-like: the spec cannot change.',
  spec: TraceDeletionSpec,
  status: TraceDeletionStatus,
  columns: [
    PHASE,
    DRY_RUN,
    {
      name: 'Matched',
      type: 'integer',
      jsonPath: '.status.matched',
      description: 'Traces the metadata matched (counted for dryRun and maxMatches).',
    },
    {
      name: 'Batches',
      type: 'integer',
      jsonPath: '.status.batchesSent',
      description: 'Delete requests accepted.',
    },
    {
      name: 'Remaining',
      type: 'integer',
      jsonPath: '.status.tracesRemaining',
      description: 'Traces still found at the last check.',
    },
    AGE,
  ],
};

export const EXAMPLE_DELETION_RESOURCE: DeletionResource = {
  names: EXAMPLE_DELETION,
  description:
    'ExampleDeletion deletes dataset examples (by id, or by metadata created before a time), soft or hard, in batches of at most 1000, then verifies with a search. Job-like: the spec cannot change.',
  spec: ExampleDeletionSpec,
  status: ExampleDeletionStatus,
  columns: [
    PHASE,
    DRY_RUN,
    { name: 'Matched', type: 'integer', jsonPath: '.status.matched', description: 'Examples named.' },
    { name: 'Deleted', type: 'integer', jsonPath: '.status.deleted', description: 'Examples deleted.' },
    { name: 'Verified', type: 'boolean', jsonPath: '.status.verified', description: 'Checked afterwards.' },
    AGE,
  ],
};

export function deletionCrd(resource: DeletionResource): CustomResourceDefinition {
  return singleVersionCrd({
    names: resource.names,
    categories: DELETION_CATEGORIES,
    scope: 'Namespaced',
    columns: resource.columns,
    openApiSchema: resourceOpenApiSchema(
      resource.description,
      toStructuralSchema(resource.spec, 'spec'),
      toStructuralSchema(resource.status, 'status'),
    ),
  });
}

export const DELETION_RESOURCES = [TRACE_DELETION_RESOURCE, EXAMPLE_DELETION_RESOURCE] as const;
