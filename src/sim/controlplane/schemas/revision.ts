// The emulator's transcription of the revision record and its states, from the reference
// notes (the API document names only DEPLOYED).
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

/** "the three *_FAILED". */
export const FAILED_REVISION_STATUSES = ['CREATE_FAILED', 'BUILD_FAILED', 'DEPLOY_FAILED'] as const;

const dateTime = z.iso.datetime({ offset: true });

export const Revision = z.object({
  id: z.uuid(),
  created_at: dateTime,
  updated_at: dateTime,
  status: RevisionStatus,
  source: Source,
  source_revision_config: SourceRevisionConfig,
});
