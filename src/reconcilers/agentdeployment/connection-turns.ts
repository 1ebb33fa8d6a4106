// How the controller's workers are shared between connections: one shard of the work queue
// per connection an object names, served in turns (FairReadyList), each turn as long as the
// connection's key is fast. A saturated key's objects cannot hold the others' keys back, and
// while every connection has objects waiting, each gets the workers in proportion to the calls
// its key may make: a turn handed to a key that admits 20 calls a second, where another admits
// 100, mostly tells objects to wait for tokens.
import type { AgentDeploymentSpec } from '../../api/agentdeployment/index.js';
import type { AgentDeploymentObject } from './kube-port.js';
import type { LaneResolution } from './ports.js';

/** Calls a second of a key's rate that earn its connection one more key per turn (1000 per 10 s: 10). */
export const RATE_PER_TURN_KEY = 10;
/** The longest turn: the slowest connection's objects wait behind at most this many of each other's. */
export const MAX_TURN_SIZE = 10;

/** The connection an object names (not resolved: the name alone is enough to share workers fairly). */
export function connectionShardOf(object: AgentDeploymentObject | undefined): string {
  const ref = (object?.spec as Partial<AgentDeploymentSpec> | undefined)?.connectionRef;
  if (ref === undefined) return '';
  return ref.kind === 'PlatformConnection'
    ? `${ref.kind}/${object?.metadata.namespace ?? ''}/${ref.name}`
    : `${ref.kind}/${ref.name}`;
}

/**
 * The keys an object's connection hands out in a row when its turn begins with the object: by
 * its key's rate (turnSizeForRate); one for a connection that cannot be resolved (its objects
 * make no call: only their status is written).
 */
export function connectionTurnSizeOf(
  object: AgentDeploymentObject | undefined,
  connectionOf: (object: AgentDeploymentObject) => LaneResolution,
): number {
  const connection = object === undefined ? undefined : connectionOf(object);
  return connection?.ok === true ? turnSizeForRate(connection.lane.controlPlane.allowedRatePerSecond()) : 1;
}

/** One key for each RATE_PER_TURN_KEY calls a second, from 1 to MAX_TURN_SIZE. */
export function turnSizeForRate(ratePerSecond: number): number {
  if (!Number.isFinite(ratePerSecond)) return 1;
  return Math.min(MAX_TURN_SIZE, Math.max(1, Math.round(ratePerSecond / RATE_PER_TURN_KEY)));
}
