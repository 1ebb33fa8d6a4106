// status of an AgentDeployment: kstatus conditions (Ready, Reconciling, Stalled) each with
// observedGeneration, plus what the operator knows of the deployment on the control plane.
// Fields that mirror nullable wire values are nullable here too, so that "the control plane
// says there is none" can be written as null rather than lost.
import { z } from 'zod';

export const CONDITION_TYPES = ['Ready', 'Reconciling', 'Stalled', 'SmokeTestPassed', 'Exported'] as const;
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
  /** spec.smokeTest: the call to the deployed revision is under way or retried. */
  SmokeTestPending: 'SmokeTestPending',
  SmokeTestPassed: 'SmokeTestPassed',
  /** spec.smokeTest failed within its budget: Ready=False (not Stalled) until the spec changes. */
  SmokeTestFailed: 'SmokeTestFailed',
  /** spec.smokeTest would send a shared key to an address its owner did not allow: Stalled, no call made. */
  SmokeTestRefused: 'SmokeTestRefused',
  /** status.ownership names a deployment of another name, or one an older object records. */
  OwnershipConflict: 'OwnershipConflict',
  /** Adoption of an existing deployment is not permitted from this namespace. */
  AdoptionNotAllowed: 'AdoptionNotAllowed',
  /** spec.managementPolicy ObserveOnly: the deployment is found; status mirrors it. */
  Observed: 'Observed',
  /** spec.managementPolicy ObserveOnly: no deployment of that name or id; looked for again slowly. */
  DeploymentNotFound: 'DeploymentNotFound',
  /** spec.connectionRef names a connection that does not exist. */
  ConnectionNotFound: 'ConnectionNotFound',
  /** The connection exists but is not Ready (key refused, not probed yet, being deleted). */
  ConnectionNotReady: 'ConnectionNotReady',
  /** The connection may not be used from the object's namespace. */
  ConnectionNotAllowed: 'ConnectionNotAllowed',
  /** spec.export: the ConfigMap holds the agent's facts (condition Exported). */
  Exported: 'Exported',
  /** spec.export names a ConfigMap the operator did not create: it is left untouched. */
  ExportConflict: 'ExportConflict',
  /**
   * spec.rollback: the latest revision failed (or failed its smoke test) and the deployment was
   * set back to the last revision that worked, or the rollback-to annotation asked for one.
   * Stalled: the failed spec is not sent again until it changes.
   */
  RolledBack: 'RolledBack',
} as const;
export type ConditionReason = (typeof CONDITION_REASONS)[keyof typeof CONDITION_REASONS];

const timestamp = (description: string) => z.iso.datetime({ offset: true }).describe(description);
const generation = (description: string) => z.number().int().min(0).meta({ description, format: 'int64' });

export const Condition = z
  .object({
    type: z
      .enum(CONDITION_TYPES)
      .describe(
        'Condition type: Ready, Reconciling or Stalled (kstatus), SmokeTestPassed (spec.smokeTest) or Exported (spec.export).',
      ),
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

export const SMOKE_TEST_RESULTS = ['Passed', 'Failed'] as const;

export const SmokeTestStatus = z
  .object({
    revisionId: z.string().max(64).describe('The revision the smoke test called.'),
    specHash: z
      .string()
      .max(64)
      .describe('Digest of the spec.smokeTest it ran; a change of spec.smokeTest runs it again.'),
    result: z.enum(SMOKE_TEST_RESULTS).describe('Passed or Failed.'),
    message: z
      .string()
      .max(1024)
      .describe('What the agent answered (quoted, truncated, secrets redacted) or why the call failed.'),
  })
  .describe('The verdict of the smoke test of the latest revision (spec.smokeTest).');

/** How many revisions status.revisionHistory keeps (newest first): the object's size matters at 10,000 objects. */
export const REVISION_HISTORY_LIMIT = 10;

const revisionSource = {
  image: z
    .string()
    .max(2048)
    .describe('The container image the revision runs (image_uri; external_container).')
    .optional(),
  repoRef: z.string().max(256).describe('The git ref the revision was built from (repo_host).').optional(),
  graphConfigPath: z
    .string()
    .max(1024)
    .describe('The graph configuration file the revision was built with (repo_host).')
    .optional(),
  commit: z
    .string()
    .max(64)
    .describe('The commit the revision was built from (repo_commit_sha; repo_host).')
    .optional(),
};

export const RevisionRecord = z
  .object({
    id: z.string().max(64).describe('Id of the revision on the control plane.'),
    status: z
      .string()
      .max(64)
      .describe('The last status the operator saw, for example BUILDING, DEPLOYED or BUILD_FAILED.'),
    ...revisionSource,
    createdAt: timestamp(
      'When the operator first saw the revision (it was made by the operator or a push).',
    ).optional(),
    deployedAt: timestamp('When the operator first saw the revision DEPLOYED.').optional(),
    smokeTest: z
      .enum(SMOKE_TEST_RESULTS)
      .describe('The verdict of spec.smokeTest on this revision.')
      .optional(),
    failureReason: z
      .string()
      .max(512)
      .describe(
        'Why the revision is not the one that should run: its failed status, or its smoke test verdict.',
      )
      .optional(),
  })
  .describe('One revision of the deployment, as the operator saw it.');

export const RevisionSummary = z
  .object({
    shortId: z
      .string()
      .max(8)
      .describe('The first 8 characters of the revision id (what kubectl get shows).'),
    ...revisionSource,
    imageVersion: z
      .string()
      .max(256)
      .describe("The deployment's image_version (the version of the image the active revision runs).")
      .optional(),
    createdAt: timestamp('When the operator first saw the revision.').optional(),
    deployedAt: timestamp('When the operator first saw the revision DEPLOYED.').optional(),
  })
  .describe('What a revision runs, in short: what kubectl get and describe show.');

export const RollbackRecord = z
  .object({
    revisionId: z.string().max(64).describe('The revision whose source the deployment was set back to.'),
    failedRevisionId: z
      .string()
      .max(64)
      .describe('The revision that failed (onFailure), or the latest revision when the annotation asked.')
      .optional(),
    reason: z.string().max(1024).describe('Why: the failure, or the rollback-to annotation.'),
    at: timestamp('When the rollback was sent.'),
    specKey: z
      .string()
      .max(4096)
      .describe(
        'What the set-aside spec was built from (generation, Secret versions, redeploy-at): it is not sent again until one of them changes.',
      ),
  })
  .describe('The last rollback: the cluster runs an older revision than the spec asks for.');

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

export const TracingProjectStatus = z
  .object({
    name: z.string().max(256).describe("The project's name: the deployment's name on the control plane."),
    id: z
      .string()
      .max(64)
      .describe('The project (session) id in the platform data API: what a TraceDeletion sessionId names.'),
  })
  .describe(
    'The tracing project the control plane created with the deployment, found by name in its workspace once the deployment exists.',
  );

export const AgentDeploymentStatus = z
  .object({
    observedGeneration: generation('The metadata.generation the status was computed from.').optional(),
    conditions: z
      .array(Condition)
      .max(8)
      .meta({
        description:
          'Ready, Reconciling and Stalled, as kstatus reads them; SmokeTestPassed with spec.smokeTest; Exported with spec.export.',
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
    url: z
      .string()
      .max(2048)
      .describe(
        'Address of the agent runtime (it answers GET /ok), set once the latest revision serves and, with spec.smokeTest, answered as expected; what `agent-operator invoke` calls.',
      )
      .optional(),
    smokeTest: SmokeTestStatus.optional(),
    tracingProject: TracingProjectStatus.optional(),
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
    activeRevision: RevisionSummary.optional(),
    latestRevision: RevisionSummary.optional(),
    revisionHistory: z
      .array(RevisionRecord)
      .max(REVISION_HISTORY_LIMIT)
      .describe(
        `The last ${REVISION_HISTORY_LIMIT} revisions the operator saw, newest first (made by the operator, a push or a rollback).`,
      )
      .optional(),
    rollback: RollbackRecord.optional(),
    lastHandledRollbackTo: z
      .string()
      .max(256)
      .describe('The last value of the agentplatform.io/rollback-to annotation that was handled.')
      .optional(),
    secretVersions: z
      .array(
        z
          .object({
            name: z
              .string()
              .describe("The Secret, in the object's namespace; a ConfigMap is named ConfigMap/<name>."),
            resourceVersion: z.string().describe('Its resourceVersion when the latest revision was made.'),
          })
          .strict(),
      )
      .describe(
        'The referenced Kubernetes Secrets (by name) and ConfigMaps (as ConfigMap/<name>), with the resourceVersion each had when the latest revision was made (a list, so that kubectl describe shows the names as written). Never holds values.',
      )
      .optional(),
  })
  .describe('Observed state of the agent deployment, written by the operator.');

export type Condition = z.infer<typeof Condition>;
export type Ownership = z.infer<typeof Ownership>;
export type SmokeTestStatus = z.infer<typeof SmokeTestStatus>;
export type TracingProjectStatus = z.infer<typeof TracingProjectStatus>;
export type RevisionRecord = z.infer<typeof RevisionRecord>;
export type RevisionSummary = z.infer<typeof RevisionSummary>;
export type RollbackRecord = z.infer<typeof RollbackRecord>;
export type AgentDeploymentStatus = z.infer<typeof AgentDeploymentStatus>;
