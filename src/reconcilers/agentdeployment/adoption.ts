// What adopting a deployment writes, and what the object then looks like to `decide`.
//
// Adopting records the deployment as owned (status.ownership, with its ids). The pass after
// it, seeing the deployment owned, most often only publishes status: Ready for a deployment
// that serves, the revision in progress for one that does not yet. `decide` looks one step
// ahead with `observedAfterAdoption`; when that next step is a status publication and nothing
// else, both go in one write. The rule that ownership is recorded before anything is sent
// for the deployment still holds: a status write sends nothing to the control plane, and the
// combined write records the ownership as the lone write would. An operator adopting 10,000
// settled objects (a restart after an upgrade from a version without ownership records,
// objects given the deployment-id annotation) makes one status write per object, not two.
import type { Deployment } from '../../controlplane/models/index.js';
import type { PublishAction } from './action.js';
import type { Observed } from './observed.js';
import { nextStatus, type StatusFacts } from './status.js';
import type { SyncState } from './sync-state.js';

/** The state the adoption's own write shows when nothing follows it in the same write. */
export function adoptionState(deployment: Deployment): SyncState {
  return { kind: 'Creating', message: adoptionMessage(deployment) };
}

/** The Adopted (or CreateRecovered) event's message. */
export function adoptionMessage(deployment: Deployment): string {
  return `Manages deployment ${deployment.id} (${deployment.name})`;
}

/** The facts an adoption records: the deployment's ids, and the ownership record keyed by the object's uid. */
export function adoptionFacts(uid: string, deployment: Deployment): StatusFacts {
  return { deployment, ownership: { uid, deploymentId: deployment.id } };
}

/**
 * The observation the pass after a lone adoption write would make: the ownership recorded,
 * status as that write leaves it, the deployment observed (the adoption records it in the
 * observation cache), no refusal remembered (the adoption forgets it).
 */
export function observedAfterAdoption(o: Observed, deployment: Deployment): Observed {
  const written = nextStatus(
    { metadata: { generation: o.object.generation }, status: o.status },
    adoptionState(deployment),
    adoptionFacts(o.object.uid, deployment),
    new Date(o.now),
  );
  const { refused: _forgotten, ...rest } = o;
  return {
    ...rest,
    status: written,
    ownership: { deploymentId: deployment.id },
    deployment: { kind: 'present', deployment },
  };
}

/** `next`, published with the adoption's ownership record in the same write. */
export function withAdoptionRecord(next: PublishAction, uid: string, deployment: Deployment): PublishAction {
  return { ...next, facts: { ...next.facts, ...adoptionFacts(uid, deployment) } };
}
