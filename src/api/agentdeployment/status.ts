// status of an AgentDeployment: kstatus conditions (Ready, Reconciling, Stalled) each with
// observedGeneration, plus what the operator knows of the deployment on the control plane.
// Fields that mirror nullable wire values are nullable here too, so that "the control plane
// says there is none" can be written as null rather than lost.
import { z } from 'zod';

export const CONDITION_TYPES = ['Ready', 'Reconciling', 'Stalled'] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;
export type ConditionStatus = (typeof CONDITION_STATUSES)[number];

/** The reasons the operator sets on its conditions (the contract's list). */
export const CONDITION_REASONS = {
  Creating: 'Creating',
  RevisionInProgress: 'RevisionInProgress',
  Deployed: 'Deployed',
  RevisionFailed: 'RevisionFailed',
  InvalidSpec: 'InvalidSpec',
  /** 400/422 from the control plane. */
  Rejected: 'Rejected',
  SecretNotFound: 'SecretNotFound',
  Throttled: 'Throttled',
  ControlPlaneUnavailable: 'ControlPlaneUnavailable',
  Deleting: 'Deleting',
  Suspended: 'Suspended',
  NameConflict: 'NameConflict',
  /** spec.connectionRef names a connection that does not exist. */
  ConnectionNotFound: 'ConnectionNotFound',
  /** The connection exists but is not Ready (key refused, not probed yet, being deleted). */
  ConnectionNotReady: 'ConnectionNotReady',
  /** The connection may not be used from the object's namespace. */
  ConnectionNotAllowed: 'ConnectionNotAllowed',
} as const;
export type ConditionReason = (typeof CONDITION_REASONS)[keyof typeof CONDITION_REASONS];

const timestamp = (description: string) => z.iso.datetime({ offset: true }).describe(description);
const generation = (description: string) => z.number().int().min(0).meta({ description, format: 'int64' });

export const Condition = z
  .object({
    type: z.enum(CONDITION_TYPES).describe('Condition type: Ready, Reconciling or Stalled (kstatus).'),
    status: z.enum(CONDITION_STATUSES).describe('True, False or Unknown.'),
    reason: z
      .string()
      .min(1)
      .max(1024)
      .describe('Machine-readable reason in CamelCase, for example Deployed or RevisionFailed.'),
    message: z.string().max(32768).describe('Human-readable detail; never contains a secret value.'),
    lastTransitionTime: timestamp('When the status of the condition last changed.'),
    observedGeneration: generation('The metadata.generation this condition was computed from.').optional(),
  })
  .describe('One observation of the state of the object.');

const nullableId = (description: string) => z.string().max(64).nullable().describe(description).optional();

export const Ownership = z
  .object({
    uid: z
      .string()
      .max(64)
      .describe('metadata.uid of the object this record belongs to; a record for another uid is ignored.'),
    deploymentId: z
      .string()
      .max(64)
      .describe(
        'Id of the control-plane deployment this object created or adopted, and the only one its finalizer may delete.',
      )
      .optional(),
    createRequestedAt: timestamp(
      'Set just before a create is sent and cleared once its outcome is known; after a crash, only a deployment created after this time may be recovered by name.',
    ).optional(),
  })
  .describe(
    'What this object owns on the control plane, recorded by the operator where tenants cannot write.',
  );

export const AgentDeploymentStatus = z
  .object({
    observedGeneration: generation('The metadata.generation the status was computed from.').optional(),
    conditions: z
      .array(Condition)
      .max(8)
      .meta({
        description: 'Ready, Reconciling and Stalled, as kstatus reads them.',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      })
      .optional(),
    deploymentId: z.string().max(64).describe('Id of the deployment on the control plane.').optional(),
    tenantId: z.string().max(64).describe('Tenant (workspace) that owns the deployment.').optional(),
    latestRevisionId: nullableId('Id of the newest revision of the deployment.'),
    latestRevisionStatus: z
      .string()
      .max(64)
      .nullable()
      .describe('Status of the newest revision, for example BUILDING, DEPLOYED or BUILD_FAILED.')
      .optional(),
    activeRevisionId: nullableId('Id of the revision currently deployed (serving).'),
    deploymentStatus: z
      .string()
      .max(64)
      .describe('Status of the deployment on the control plane, for example READY or AWAITING_DATABASE.')
      .optional(),
    customUrl: z
      .string()
      .max(2048)
      .nullable()
      .describe('URL at which the deployment is reachable.')
      .optional(),
    lastSyncTime: timestamp('When the operator last compared the deployment with the spec.').optional(),
    ownership: Ownership.optional(),
    lastHandledRedeployAt: z
      .string()
      .max(256)
      .describe('The last value of the agentplatform.io/redeploy-at annotation that was rolled out.')
      .optional(),
    lastHandledReconcileAt: z
      .string()
      .max(256)
      .describe('The last value of the agentplatform.io/reconcile-requested-at annotation that was handled.')
      .optional(),
    secretVersions: z
      .record(z.string(), z.string())
      .describe(
        'resourceVersion of each referenced Kubernetes Secret, by Secret name, that the latest revision was made with. Never holds values.',
      )
      .optional(),
  })
  .describe('Observed state of the agent deployment, written by the operator.');

export type Condition = z.infer<typeof Condition>;
export type Ownership = z.infer<typeof Ownership>;
export type AgentDeploymentStatus = z.infer<typeof AgentDeploymentStatus>;
