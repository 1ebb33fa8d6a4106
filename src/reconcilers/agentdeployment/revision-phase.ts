// What a revision's status means for the object that follows it (docs/api/control-plane.md, "Revision"):
// DEPLOYED, SKIPPED and the *_FAILED states are terminal; INTERRUPTED and UNKNOWN are
// transient (keep watching). SKIPPED means a newer revision superseded this one, which is
// normal and never an error.
import { isFailedRevisionStatus, type RevisionStatus } from '../../controlplane/models/index.js';

export type RevisionPhase = 'InProgress' | 'Deployed' | 'Failed' | 'Superseded';

export function revisionPhase(status: RevisionStatus): RevisionPhase {
  if (status === 'DEPLOYED') return 'Deployed';
  if (status === 'SKIPPED') return 'Superseded';
  if (isFailedRevisionStatus(status)) return 'Failed';
  return 'InProgress';
}
