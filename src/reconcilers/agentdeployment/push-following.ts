// How a settled deployment is followed. One that builds on push (source_config.build_on_push)
// can change by itself: a push makes a new revision without the operator. It is followed at
// the push cadence (the poller's 'follow' mode, a few seconds) so that such a revision gets its
// events, conditions and smoke test within seconds; any other settled deployment changes only
// through the operator and is looked at once per resync period.
import type { Deployment } from '../../controlplane/models/index.js';
import type { Tracking } from './action.js';

export function settledTracking(deployment: Deployment): Tracking {
  return { id: deployment.id, mode: buildsOnPush(deployment) ? 'follow' : 'steady' };
}

export function buildsOnPush(deployment: Deployment): boolean {
  return deployment.source_config.build_on_push === true;
}
