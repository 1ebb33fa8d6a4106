// What both deletion resources share: the connection reference, a dry run and a bound on how
// much one object may delete, metadata pairs, the phases' conditions and the Job-like
// immutability of the spec.
import { z } from 'zod';
import { CEL_RULES_KEY, celRule } from '../agentdeployment/cel.js';
import { Condition } from '../agentdeployment/status.js';

import { ConnectionRef } from '../agentdeployment/spec.js';

export { ConnectionRef };

/**
 * Where a count stops when nothing else bounds it (a dry run without maxMatches): 100 pages of
 * the run query, about 70 s of its rate row (15 per 10 s per key).
 */
export const COUNT_CEILING = 10_000;

/** A Job-like spec: fixed at creation, so that status always describes what was asked. */
export const IMMUTABLE_SPEC = celRule('self == oldSelf', 'spec is immutable: create a new object instead');

export function withSpecRules<T extends z.ZodType>(schema: T, description: string, rules: object[]): T {
  return schema.meta({ description, [CEL_RULES_KEY]: [IMMUTABLE_SPEC, ...rules] });
}

/** The spec fields of both kinds besides what to delete: which connection, and the guards. */
export function deletionSpecFields(what: { plural: string; counted: string }) {
  return {
    connectionRef: ConnectionRef.optional(),
    dryRun: z
      .boolean()
      .describe(
        'true: delete nothing. Count what the deletion would touch into status.matched, apply maxMatches, and end Completed with the Ready reason DryRun (or Failed with TooManyMatches). Default false.',
      )
      .optional(),
    maxMatches: z
      .number()
      .int()
      .min(1)
      .meta({
        description: `The most ${what.plural} this object may delete: ${what.counted}, counted before anything is sent (up to maxMatches + 1). More fails it with the reason TooManyMatches, and nothing is deleted. Absent: no limit.`,
        format: 'int64',
      })
      .optional(),
  };
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
  matchedIsLowerBound: z
    .boolean()
    .describe(
      `true when counting stopped before the end (at maxMatches + 1, or at ${COUNT_CEILING} in a dry run without maxMatches): at least status.matched match.`,
    )
    .optional(),
};
