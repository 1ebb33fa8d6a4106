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
      .describe('How many AgentDeployments refer to this connection.')
      .optional(),
  })
  .describe('Observed state of the connection, written by the operator.');

export type ConnectionCondition = z.infer<typeof ConnectionCondition>;
export type ConnectionStatus = z.infer<typeof ConnectionStatus>;
