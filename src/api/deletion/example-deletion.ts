// ExampleDeletion: delete dataset examples by id, or every example (across datasets) created
// before a time that carries ANY of some metadata pairs; soft (tombstone the current version)
// or hard (zero inputs, outputs and metadata in every version). Example deletion takes effect
// at once, so the operator verifies right after with the same search.
import { z } from 'zod';
import { celRule } from '../agentdeployment/cel.js';
import { MetadataPairs, count, deletionSpecFields, deletionStatusBase, withSpecRules } from './common.js';
import type { DeletionObjectMeta } from './trace-deletion.js';

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export const ExampleSearch = z
  .object({
    metadata: MetadataPairs.describe('An example matches when its metadata has ANY of these pairs.'),
    asOf: z.iso
      .datetime({ offset: true })
      .describe("Only examples created before this time match; default: this object's creation time.")
      .optional(),
  })
  .describe('Which examples to delete, across all datasets of the workspace.');

export const ExampleDeletionSpec = withSpecRules(
  z.object({
    ...deletionSpecFields({
      plural: 'examples',
      counted: 'the ids, or the examples the search matches',
    }),
    exampleIds: z
      .array(z.string().regex(UUID))
      .min(1)
      .max(10_000)
      .describe('Example ids to delete, sent in batches of at most 1000.')
      .optional(),
    search: ExampleSearch.optional(),
    hardDelete: z
      .boolean()
      .default(false)
      .describe(
        'false: tombstone the current version only (earlier versions keep the data); true: zero inputs, outputs and metadata in every version.',
      ),
  }),
  'What to delete: exampleIds or search, exactly one. Immutable.',
  [celRule('has(self.exampleIds) != has(self.search)', 'spec: exactly one of exampleIds or search')],
);

export const ExampleDeletionStatus = z
  .object({
    ...deletionStatusBase,
    matched: count('Examples the deletion names: the ids, or the examples the search matches.'),
    deleted: count('Examples the platform reported deleted.'),
    verified: z
      .boolean()
      .describe('A search afterwards found none of them (search form), or every id was deleted.')
      .optional(),
  })
  .describe('Progress of the deletion, written by the operator.');

export type ExampleDeletionSpec = z.infer<typeof ExampleDeletionSpec>;
export type ExampleDeletionStatus = z.infer<typeof ExampleDeletionStatus>;

export interface ExampleDeletionObject {
  apiVersion?: string;
  kind?: string;
  metadata: DeletionObjectMeta;
  spec: ExampleDeletionSpec;
  status?: ExampleDeletionStatus;
}
