// What both deletion resources share: the connection reference, metadata pairs, the phases'
// conditions and the Job-like immutability of the spec.
import { z } from 'zod';
import { CEL_RULES_KEY, celRule } from '../agentdeployment/cel.js';
import { Condition } from '../agentdeployment/status.js';

export { ConnectionRef } from '../agentdeployment/spec.js';

/** A Job-like spec: fixed at creation, so that status always describes what was asked. */
export const IMMUTABLE_SPEC = celRule('self == oldSelf', 'spec is immutable: create a new object instead');

export function withSpecRules<T extends z.ZodType>(schema: T, description: string, rules: object[]): T {
  return schema.meta({ description, [CEL_RULES_KEY]: [IMMUTABLE_SPEC, ...rules] });
}

export const MetadataPairs = z
  .record(z.string().min(1).max(256), z.string().max(1024))
  .refine((pairs) => Object.keys(pairs).length > 0, { message: 'must hold at least one key/value pair' })
  .meta({
    [CEL_RULES_KEY]: [
      celRule('size(self) >= 1 && size(self) <= 64', 'metadata: must hold from 1 to 64 key/value pairs'),
    ],
  });

export const DELETION_PHASES = [
  'Pending',
  'Submitting',
  'Submitted',
  'Verifying',
  'Completed',
  'Failed',
] as const;
export type DeletionPhase = (typeof DELETION_PHASES)[number];

const timestamp = (description: string) => z.iso.datetime({ offset: true }).describe(description);
export const optionalTimestamp = (description: string) => timestamp(description).optional();
export const count = (description: string) =>
  z.number().int().min(0).meta({ description, format: 'int64' }).optional();

export const deletionStatusBase = {
  observedGeneration: count('The metadata.generation the status was computed from.'),
  phase: z
    .enum(DELETION_PHASES)
    .describe('Pending, Submitting, Submitted, Verifying, Completed or Failed.')
    .optional(),
  conditions: z
    .array(Condition)
    .max(3)
    .meta({
      description:
        'kstatus conditions: Ready (Completed), Reconciling (in progress), Stalled (Failed or blocked).',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    })
    .optional(),
  batchesSent: count('Delete requests accepted so far (at most 1000 ids each).'),
  batchesTotal: count('Delete requests the whole deletion takes, once known.'),
  submittedAt: optionalTimestamp('When the last batch was accepted.'),
  verifiedAt: optionalTimestamp('When verification found nothing left.'),
  message: z.string().max(4096).describe('What the operator last did or found, for people.').optional(),
};
