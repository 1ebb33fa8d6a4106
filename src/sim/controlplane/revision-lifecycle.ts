// A revision's state is a pure function of its timestamps and the clock: nothing is
// scheduled, so 10,000 idle deployments cost no timers. Each state of the path lasts one
// phase; the revision then ends DEPLOYED, or in the failure state injected for it, or
// SKIPPED if a newer revision of the same deployment appeared before it finished.
import type { RevisionStatus, Source } from './schemas/index.js';

export type FailureStatus = 'CREATE_FAILED' | 'BUILD_FAILED' | 'DEPLOY_FAILED';

const BUILD_PATH: RevisionStatus[] = [
  'CREATING',
  'QUEUED',
  'AWAITING_BUILD',
  'BUILDING',
  'AWAITING_DEPLOY',
  'DEPLOYING',
];
/** Container-image sources have nothing to build (docs/api/control-plane.md, "Revision"). */
const IMAGE_PATH: RevisionStatus[] = ['CREATING', 'QUEUED', 'AWAITING_DEPLOY', 'DEPLOYING'];

export interface RevisionTimeline {
  source: Source;
  createdAt: number;
  /** Set when the deployment gets a newer revision. */
  supersededAt: number | null;
  failure: FailureStatus | null;
}

export interface RevisionState {
  status: RevisionStatus;
  /** When the revision entered `status` (ms since the epoch). */
  since: number;
}

export function statesOf(source: Source): readonly RevisionStatus[] {
  return source === 'repo_host' ? BUILD_PATH : IMAGE_PATH;
}

/**
 * How many states the revision passes through before it fails. A BUILD_FAILED injected
 * into a source without a build fails where the image would be fetched: after QUEUED.
 */
function statesBeforeFailure(path: readonly RevisionStatus[], failure: FailureStatus): number {
  const failingState =
    failure === 'CREATE_FAILED' ? 'CREATING' : failure === 'DEPLOY_FAILED' ? 'DEPLOYING' : 'BUILDING';
  const index = path.indexOf(failingState);
  return (index >= 0 ? index : path.indexOf('QUEUED')) + 1;
}

export function revisionStateAt(timeline: RevisionTimeline, phaseMs: number, now: number): RevisionState {
  const path = statesOf(timeline.source);
  const steps = timeline.failure ? statesBeforeFailure(path, timeline.failure) : path.length;
  const endsAt = timeline.createdAt + steps * phaseMs;
  const finalStatus: RevisionStatus = timeline.failure ?? 'DEPLOYED';
  if (timeline.supersededAt !== null && timeline.supersededAt < endsAt && now >= timeline.supersededAt) {
    return { status: 'SKIPPED', since: timeline.supersededAt };
  }
  if (now >= endsAt) return { status: finalStatus, since: endsAt };
  const index = Math.max(0, Math.floor((now - timeline.createdAt) / phaseMs));
  return { status: path[index] ?? 'UNKNOWN', since: timeline.createdAt + index * phaseMs };
}
