// Who may use a control-plane name when several objects of the fleet resolve to it (two
// namespaces, one `spec.name`). Exactly one may: the one that already owns a deployment of
// that name; failing that, the oldest (creationTimestamp, then uid, so that every replica
// and every restart picks the same one). The others are Stalled with NameConflict and make
// no control-plane call at all. Pure: the operator's cache supplies the claimants.
import type { FleetClaimant } from './ports.js';

/** The key of the claimant that wins the name against `self`, or undefined when `self` does. */
export function rivalFor(self: FleetClaimant, claimants: readonly FleetClaimant[]): string | undefined {
  if (self.ownedDeploymentId !== undefined) return undefined;
  let winner: FleetClaimant = self;
  for (const other of claimants) {
    if (other.uid === self.uid) continue;
    if (beats(other, winner)) winner = other;
  }
  return winner === self ? undefined : winner.key;
}

/**
 * The key of a claimant that records the same deployment id as `self` and is not younger,
 * if any. Two records of one id mean one was forged (status is writable by a role with the
 * status subresource); the object created first made the deployment, or adopted it first.
 * creationTimestamp has one-second precision: within the same second neither record is
 * trusted (a forger could otherwise win on uid order); both objects stall, none is taken over.
 */
export function olderOwnerOf(self: FleetClaimant, claimants: readonly FleetClaimant[]): string | undefined {
  if (self.ownedDeploymentId === undefined) return undefined;
  return claimants.find(
    (other) =>
      other.uid !== self.uid &&
      other.ownedDeploymentId === self.ownedDeploymentId &&
      other.creationTimestamp <= self.creationTimestamp,
  )?.key;
}

function beats(a: FleetClaimant, b: FleetClaimant): boolean {
  const aOwns = a.ownedDeploymentId !== undefined;
  const bOwns = b.ownedDeploymentId !== undefined;
  if (aOwns !== bOwns) return aOwns;
  if (a.creationTimestamp !== b.creationTimestamp) return a.creationTimestamp < b.creationTimestamp;
  return a.uid < b.uid;
}
