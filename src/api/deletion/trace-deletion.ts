// TraceDeletion: delete traces of one session, named by id or by the AgentDeployment whose
// tracing project it is (ids inline or from ConfigMap keys), or
// workspace-wide every trace carrying ANY of some metadata pairs; then verify, on a slow
// schedule, that the platform's deletion job really removed them.
import { z } from 'zod';
import { CEL_RULES_KEY, celRule } from '../agentdeployment/cel.js';
import {
  MetadataPairs,
  count,
  deletionSpecFields,
  deletionStatusBase,
  optionalTimestamp,
  withSpecRules,
} from './common.js';

const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** Most ConfigMaps one TraceDeletion names: 100 x ~27,000 uuids per 1 MiB ConfigMap = 2.7 million ids. */
export const MAX_CONFIG_MAP_KEY_REFS = 100;

const ConfigMapKeyRef = z.object({
  name: z.string().min(1).max(253).describe('ConfigMap in the same namespace.'),
  key: z.string().min(1).max(253).describe('Key holding the ids, newline- or comma-separated.'),
});

export const TraceIdsFrom = z
  .object({
    configMapKeyRef: ConfigMapKeyRef.describe('A ConfigMap key holding the trace ids.').optional(),
    configMapKeyRefs: z
      .array(ConfigMapKeyRef)
      .min(1)
      .max(MAX_CONFIG_MAP_KEY_REFS)
      .describe(
        'ConfigMap keys holding the trace ids, read in this order: for more ids than one ConfigMap (1 MiB) holds.',
      )
      .optional(),
  })
  .refine((from) => (from.configMapKeyRef === undefined) !== (from.configMapKeyRefs === undefined), {
    message: 'traceIdsFrom: exactly one of configMapKeyRef or configMapKeyRefs',
  })
  .meta({
    [CEL_RULES_KEY]: [
      celRule(
        'has(self.configMapKeyRef) != has(self.configMapKeyRefs)',
        'traceIdsFrom: exactly one of configMapKeyRef or configMapKeyRefs',
      ),
    ],
  })
  .describe('Where a long list of trace ids comes from.');

export const AgentDeploymentRef = z
  .object({
    name: z
      .string()
      .min(1)
      .max(253)
      .describe('An AgentDeployment in the same namespace as this TraceDeletion.'),
  })
  .describe(
    "Form 1, instead of sessionId: the tracing project of this AgentDeployment (its status.tracingProject, checked by name against the platform before anything is sent). Deleted with the AgentDeployment's connection, which this namespace must be allowed to delete data with.",
  );

export const TraceDeletionSpec = withSpecRules(
  z.object({
    ...deletionSpecFields({
      plural: 'traces',
      counted: 'the ids, or the traces the metadata matches',
    }),
    sessionId: z
      .string()
      .regex(new RegExp(UUID_PATTERN))
      .describe('Form 1: the session (tracing project) id the traces belong to.')
      .optional(),
    agentDeploymentRef: AgentDeploymentRef.optional(),
    traceIds: z
      .array(z.string().regex(new RegExp(UUID_PATTERN)))
      .max(10_000)
      .describe('Form 1: trace ids (root run ids), sent in batches of at most 1000.')
      .optional(),
    traceIdsFrom: TraceIdsFrom.optional(),
    metadata: MetadataPairs.describe(
      'Form 2: delete, workspace-wide, every trace that has ANY of these metadata pairs.',
    ).optional(),
  }),
  'What to delete. Exactly one form: sessionId or agentDeploymentRef with traceIds or traceIdsFrom, or metadata. Immutable.',
  [
    celRule(
      '((has(self.sessionId) != has(self.agentDeploymentRef)) && (has(self.traceIds) != has(self.traceIdsFrom)) && !has(self.metadata)) || (has(self.metadata) && !has(self.sessionId) && !has(self.agentDeploymentRef) && !has(self.traceIds) && !has(self.traceIdsFrom))',
      'spec: exactly one form: one of sessionId or agentDeploymentRef with one of traceIds or traceIdsFrom, or metadata alone',
    ),
  ],
);

export const TraceDeletionStatus = z
  .object({
    ...deletionStatusBase,
    matched: count(
      'Traces the deletion names, known before anything is sent: the ids, or the traces the metadata matches (counted for dryRun or maxMatches only).',
    ),
    idsRequested: count('Trace ids sent for deletion.'),
    tracesRemaining: count('Traces still found at the last verification.'),
    nextCheckAt: optionalTimestamp('When verification looks again.'),
  })
  .describe('Progress of the deletion, written by the operator.');

export type TraceDeletionSpec = z.infer<typeof TraceDeletionSpec>;
export type TraceDeletionStatus = z.infer<typeof TraceDeletionStatus>;

export interface DeletionObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
}

export interface TraceDeletionObject {
  apiVersion?: string;
  kind?: string;
  metadata: DeletionObjectMeta;
  spec: TraceDeletionSpec;
  status?: TraceDeletionStatus;
}
