// A revision the operator did not start (a push to a deployment that builds on push, or a
// change made outside the operator) is announced like one it started: a NewRevision event
// naming what it was built from, and the start of its rollout for the rollout-time metric.
// Read off the status change, like every announcement, so that it is said once.
import { shortRevisionId } from './history.js';
import { objectKey, type AgentDeploymentView } from './object.js';
import type { Shell } from './pass-context.js';

export function announceArrivedRevision<Object extends AgentDeploymentView>(
  shell: Shell<Object>,
  object: Object,
  status: NonNullable<Object['status']>,
): void {
  const revisionId = status.latestRevisionId;
  const previous = object.status?.latestRevisionId;
  // The first revision of a deployment is its create's (or adoption's): nothing arrived.
  if (!revisionId || previous === undefined || previous === revisionId) return;
  const memory = shell.memory.get(objectKey(object));
  if (memory.rolloutStartedAt.has(revisionId)) return;
  memory.rolloutStartedAt.set(revisionId, shell.deps.clock.now());
  const entry = status.revisionHistory?.find((candidate) => candidate.id === revisionId);
  const source = entry?.commit
    ? `commit ${entry.commit.slice(0, 12)}${entry.repoRef ? ` of ${entry.repoRef}` : ''}`
    : entry?.image
      ? `image ${entry.image}`
      : 'its source';
  shell.deps.kube.event(
    object,
    'Normal',
    'NewRevision',
    `Revision ${shortRevisionId(revisionId)} (${source}) started outside the operator, after revision ${shortRevisionId(previous)}`,
  );
}
