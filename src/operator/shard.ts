// Sharding, the way Flux and Argo CD spread a large fleet: each operator Deployment runs with
// `--shard <name>` and owns the objects labelled `agentplatform.io/shard=<name>`; the default
// shard owns every object without the label. Kubernetes does the rest: the label selector on
// the list and watch decides what a shard sees (an object relabelled elsewhere leaves this
// shard's watch as a DELETED event and enters the other's as ADDED), and each shard has its
// own Lease, so one shard's standby takes over only that shard. No membership of our own.
import { Gauge, type Registry } from 'prom-client';
import { GROUP } from '../api/agentdeployment/names.js';

/** The label that assigns an AgentDeployment, TraceDeletion or ExampleDeletion to a shard. */
export const SHARD_LABEL = `${GROUP}/shard`;
/** The shard that owns every object without the label. */
export const DEFAULT_SHARD = 'default';
/** A shard name is a label value, and part of a Lease name: a DNS label keeps both valid. */
export const SHARD_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
export const SHARD_NAME_RULE =
  "a DNS label (lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63)";

export interface ShardScope {
  /** The shard's name; undefined when the operator is not sharded (it owns every object). */
  name: string | undefined;
  /** The label selector of the sharded kinds' list and watch; undefined: no selector. */
  labelSelector: string | undefined;
  /** The shard's own Lease: `<leader-election-id>-<shard>`, or the id itself when unsharded. */
  leaseName: string;
}

/**
 * The scope of `--shard`: the named shard selects its label value; the default shard selects
 * the objects that carry no shard label at all (Flux's `!sharding.fluxcd.io/key`), so an
 * object with no label is never left without an owner.
 */
export function shardScope(shard: string | undefined, leaderElectionId: string): ShardScope {
  if (shard === undefined) return { name: undefined, labelSelector: undefined, leaseName: leaderElectionId };
  return {
    name: shard,
    labelSelector: shard === DEFAULT_SHARD ? `!${SHARD_LABEL}` : `${SHARD_LABEL}=${shard}`,
    leaseName: `${leaderElectionId}-${shard}`,
  };
}

/** `agent_operator_shard_info{shard,selector} 1`: which shard this replica serves (absent when unsharded). */
export function bindShardInfoMetric(registry: Registry, scope: ShardScope): void {
  if (scope.name === undefined) return;
  const gauge = new Gauge({
    name: 'agent_operator_shard_info',
    help: 'The shard this replica serves (--shard) and the label selector of its sharded watches; always 1.',
    labelNames: ['shard', 'selector'],
    registers: [registry],
  });
  gauge.set({ shard: scope.name, selector: scope.labelSelector ?? '' }, 1);
}
