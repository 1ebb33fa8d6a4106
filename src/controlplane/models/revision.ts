// Revision record and its states (docs/api/control-plane.md, "Revision": the published
// interface names only DEPLOYED).
import { z } from 'zod';
import { Source, SourceRevisionConfig } from './deployment.js';

export const REVISION_STATUSES = [
  'CREATING',
  'QUEUED',
  'AWAITING_BUILD',
  'BUILDING',
  'AWAITING_DEPLOY',
  'DEPLOYING',
  'DEPLOYED',
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'SKIPPED',
  'INTERRUPTED',
  'UNKNOWN',
] as const;
export const RevisionStatus = z.enum(REVISION_STATUSES);
export type RevisionStatus = z.infer<typeof RevisionStatus>;

export const FAILED_REVISION_STATUSES = ['CREATE_FAILED', 'BUILD_FAILED', 'DEPLOY_FAILED'] as const;
/** Terminal states: nothing more will happen to the revision. INTERRUPTED and UNKNOWN are not. */
export const TERMINAL_REVISION_STATUSES: ReadonlySet<RevisionStatus> = new Set<RevisionStatus>([
  'DEPLOYED',
  'SKIPPED',
  ...FAILED_REVISION_STATUSES,
]);

export function isTerminalRevisionStatus(status: RevisionStatus): boolean {
  return TERMINAL_REVISION_STATUSES.has(status);
}

export function isFailedRevisionStatus(status: RevisionStatus): boolean {
  return (FAILED_REVISION_STATUSES as readonly RevisionStatus[]).includes(status);
}

export const Revision = z.object({
  id: z.uuid(),
  created_at: z.iso.datetime({ offset: true }),
  updated_at: z.iso.datetime({ offset: true }),
  status: RevisionStatus,
  source: Source,
  source_revision_config: SourceRevisionConfig,
});
export type Revision = z.infer<typeof Revision>;
