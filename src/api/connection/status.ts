// status of a connection: kstatus-style conditions (Ready: the credential authenticates;
// Reachable: the platform API answers /ok, and the private domain too when set), when it was
// last probed, and how much of its rate budget is in use. Never the key, nor any part of it.
import { z } from 'zod';
import { Condition as AgentDeploymentCondition } from '../agentdeployment/status.js';

export const CONNECTION_CONDITION_TYPES = ['Ready', 'Reachable'] as const;
export type ConnectionConditionType = (typeof CONNECTION_CONDITION_TYPES)[number];

export const ConnectionCondition = AgentDeploymentCondition.extend({
  type: z.enum(CONNECTION_CONDITION_TYPES).describe('Ready or Reachable.'),
});

/** Shards a connection's status can list: far more than a cluster runs, and a bound on its size. */
export const MAX_SHARD_ENTRIES = 64;

/** One shard's count of a connection's users, written by that shard's leader. */
export const ShardUsers = z
  .object({
    shard: z
      .string()
      .min(1)
      .max(63)
      .describe('The shard (--shard) whose leader counted.'),
    usedBy: z
      .number()
      .int()
      .min(0)
      .describe("How many of that shard's AgentDeployments refer to this connection."),
    observedAt: z.iso
      .datetime({ offset: true })
      .describe('When that shard last counted (a change of its count, or its probe).'),
  })
  .describe("One shard's users of the connection.");

export const ConnectionStatus = z
  .object({
    observedGeneration: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'The metadata.generation the status was computed from.', format: 'int64' })
      .optional(),
    conditions: z
      .array(ConnectionCondition)
      .max(4)
      .meta({
        description: 'Ready (the credential authenticates) and Reachable (the platform API answers).',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      })
      .optional(),
    endpoint: z
      .string()
      .max(2048)
      .describe('The region (us, eu) or the self-hosted control-plane URL, as the printer column shows it.')
      .optional(),
    lastProbeTime: z.iso
      .datetime({ offset: true })
      .describe('When the connection was last probed.')
      .optional(),
    rateBudget: z
      .object({
        limit: z.string().max(64).describe('The default row in force, e.g. 1000/10s.'),
        availablePercent: z
          .number()
          .int()
          .min(0)
          .max(100)
          .describe('Share of the budget free at the last probe.'),
        sharedWith: z
          .number()
          .int()
          .min(0)
          .describe(
            'How many other connections spend this budget (same credential and control-plane address).',
          )
          .optional(),
      })
      .describe('Use of the rate budget of this credential and endpoint.')
      .optional(),
    usedBy: z
      .number()
      .int()
      .min(0)
      .describe(
        'How many AgentDeployments refer to this connection, in the whole cluster: the sum of shardUsers when the operator is sharded. Counted a second after a change of them, so a burst of them is written once.',
      )
      .optional(),
    shardUsers: z
      .array(ShardUsers)
      .max(MAX_SHARD_ENTRIES)
      .meta({
        description:
          "Each shard's own count of the AgentDeployments that refer to this connection (sharded operators only; each shard writes only its entry).",
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['shard'],
      })
      .optional(),
  })
  .describe('Observed state of the connection, written by the operator.');

export type ConnectionCondition = z.infer<typeof ConnectionCondition>;
export type ConnectionStatus = z.infer<typeof ConnectionStatus>;
export type ShardUsers = z.infer<typeof ShardUsers>;
