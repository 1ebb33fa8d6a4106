// The names under which the two deletion resources are served: a contract with users
// (kubectl, RBAC, Helm), kept in one place like the AgentDeployment's.
import { GROUP, VERSION } from '../agentdeployment/names.js';

export const DELETION_API_VERSION = `${GROUP}/${VERSION}`;

export interface DeletionResourceNames {
  kind: 'TraceDeletion' | 'ExampleDeletion';
  listKind: string;
  plural: string;
  singular: string;
  shortNames: readonly string[];
}

export const TRACE_DELETION: DeletionResourceNames = {
  kind: 'TraceDeletion',
  listKind: 'TraceDeletionList',
  plural: 'tracedeletions',
  singular: 'tracedeletion',
  shortNames: ['tdel'],
};

export const EXAMPLE_DELETION: DeletionResourceNames = {
  kind: 'ExampleDeletion',
  listKind: 'ExampleDeletionList',
  plural: 'exampledeletions',
  singular: 'exampledeletion',
  shortNames: ['exdel'],
};

export const DELETION_CATEGORIES = ['agents', 'deletions'] as const;
