// spec of an AgentDeployment: DeploymentCreateRequest in Kubernetes style, plus the
// operator's own settings (deletionPolicy, suspend, adoptExisting, managementPolicy). The rules that span
// fields (immutability, which source a field applies to, tag refs and buildOnPush) ride on
// `spec` as CEL rules, because `spec` exists on both sides of every update.
import { z } from 'zod';
import {
  DEPLOYMENT_TYPES,
  DNS_LABEL_PATTERN,
  SOURCES,
  TAG_REF_PREFIX,
} from '../../controlplane/models/index.js';
import { CONNECTION_KINDS } from '../connection/names.js';
import {
  CEL_RULES_KEY,
  type CelRule,
  celRule,
  exactlyOneWithSource,
  immutableField,
  onlyWithSource,
  presence,
  requiredWithSource,
} from './cel.js';
import { C_IDENTIFIER_REGEX, LIMITS } from './kubernetes-shapes.js';
import { ResourceSpec } from './resource-spec.js';
import { ConfigMapKeySelector, SecretKeySelector, localObjectName } from './secret-key-selector.js';
import { ExportSpec } from './export-spec.js';
import { SmokeTest } from './smoke-test-spec.js';
import { uuidField } from './uuid.js';

export { ConfigMapKeySelector, SecretKeySelector };

const DNS_SUBDOMAIN_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export const ListenerConfig = z
  .object({
    clusterNamespace: z
      .string()
      .min(1)
      .max(63)
      .regex(DNS_LABEL_PATTERN)
      .describe(
        'Namespace of the container cluster to deploy into; only for listeners of compute type cluster. Immutable.',
      )
      .optional(),
  })
  .describe('Settings of the listener (external_container only).');

const NameRef = (what: string) =>
  z
    .object({ name: z.string().min(1).max(253).describe(`Name of the ${what}.`) })
    .describe(
      `The ${what} by name, resolved to its id on the object's connection: the same manifest works in every workspace and region. Alternative to the id. Immutable.`,
    );

export const SourceConfig = z
  .object({
    integrationRef: NameRef('repository-host integration (repo_host only)').optional(),
    listenerRef: NameRef(
      'listener: the compute_id of its cluster or serverless compute (external_container only)',
    ).optional(),
    integrationId: uuidField(
      'spec.sourceConfig.integrationId',
      'Repository-host integration id, from GET /v1/integrations/repo_host/install (repo_host only). Immutable.',
    ).optional(),
    repoUrl: z
      .string()
      .min(1)
      .max(2048)
      .describe('Git repository URL (repo_host only). Immutable.')
      .optional(),
    deploymentType: z
      .enum(DEPLOYMENT_TYPES)
      .describe('Deployment tier: dev_free, dev or prod (repo_host only). Immutable.')
      .optional(),
    buildOnPush: z
      .boolean()
      .describe(
        `Build a new revision on every push to sourceRevisionConfig.repoRef (repo_host only). Cannot be true when repoRef is a tag (${TAG_REF_PREFIX}...).`,
      )
      .optional(),
    customUrl: z
      .string()
      .min(1)
      .max(2048)
      .describe(
        'Custom URL of the deployment (external_container only; repo_host deployments get one assigned).',
      )
      .optional(),
    resourceSpec: ResourceSpec.optional(),
    listenerId: uuidField(
      'spec.sourceConfig.listenerId',
      'Listener to deploy through, from GET /v2/listeners (external_container only). Immutable.',
    ).optional(),
    listenerConfig: ListenerConfig.optional(),
    installCommand: z
      .string()
      .min(1)
      .max(4096)
      .describe(
        'JavaScript deployments: install command, run from the repository root; autodetected when left out.',
      )
      .optional(),
    buildCommand: z
      .string()
      .min(1)
      .max(4096)
      .describe(
        'JavaScript deployments: build command, run from the directory of the graph configuration file.',
      )
      .optional(),
  })
  .describe('Settings of the source. Changing one does not make a new revision, except resourceSpec.');

export const SourceRevisionConfig = z
  .object({
    repoRef: z
      .string()
      .min(1)
      .max(255)
      .describe(
        `Git ref to build (repo_host only): a branch by its bare name, a tag by its full path (${TAG_REF_PREFIX}v1). A change makes a new revision.`,
      )
      .optional(),
    graphConfigPath: z
      .string()
      .min(1)
      .max(1024)
      .describe(
        'Path of the graph configuration file in the repository (repo_host only). A change makes a new revision.',
      )
      .optional(),
    imageUri: z
      .string()
      .min(1)
      .max(1024)
      .describe('Container image to deploy (external_container only). A change makes a new revision.')
      .optional(),
  })
  .describe('What to build and deploy. A change of any field makes a new revision.');

/** Why an entry of spec.secrets is refused when it has neither or both forms. */
export const SECRET_REFERENCE_SHAPE_MESSAGE =
  'spec.secrets[] must set exactly one of value, valueFrom.secretKeyRef {name, key} or valueFrom.configMapKeyRef {name, key}';

const HAS_SECRET_KEY_REF =
  'has(self.valueFrom) && has(self.valueFrom.secretKeyRef) && has(self.valueFrom.secretKeyRef.name) && has(self.valueFrom.secretKeyRef.key)';
const HAS_CONFIG_MAP_KEY_REF =
  'has(self.valueFrom) && has(self.valueFrom.configMapKeyRef) && has(self.valueFrom.configMapKeyRef.name) && has(self.valueFrom.configMapKeyRef.key)';

export const SecretReference = z
  .object({
    name: z
      .string()
      .min(1)
      .max(256)
      .meta({
        description: 'Environment variable name the deployment sees the secret under: a C identifier.',
        [CEL_RULES_KEY]: [
          celRule(
            `self.matches('${C_IDENTIFIER_REGEX}')`,
            'spec.secrets[].name must be a C identifier ([A-Za-z_][A-Za-z0-9_]*): it becomes an environment variable',
          ),
        ],
      }),
    value: z
      .string()
      .max(32768)
      .describe(
        "A plain value, as a container env entry's value. Not secret: it is stored in this object; use valueFrom for anything secret.",
      )
      .optional(),
    valueFrom: z
      .object({
        secretKeyRef: SecretKeySelector.optional(),
        configMapKeyRef: ConfigMapKeySelector.optional(),
      })
      .describe(
        'Where the value comes from: a key of a Secret (secretKeyRef) or of a ConfigMap (configMapKeyRef) in this namespace; exactly one.',
      )
      .optional(),
  })
  .meta({
    description:
      "An environment variable of the deployment: a plain value, or a reference to a key of a Kubernetes Secret or ConfigMap. Every entry is sent as one of the deployment's secrets, as the control plane API requires.",
    [CEL_RULES_KEY]: [
      celRule(
        `(has(self.value) ? 1 : 0) + ((${HAS_SECRET_KEY_REF}) ? 1 : 0) + ((${HAS_CONFIG_MAP_KEY_REF}) ? 1 : 0) == 1`,
        SECRET_REFERENCE_SHAPE_MESSAGE,
      ),
    ],
  })
  .refine(
    (entry) =>
      [entry.value, entry.valueFrom?.secretKeyRef, entry.valueFrom?.configMapKeyRef].filter(
        (form) => form !== undefined,
      ).length === 1,
    {
      message: SECRET_REFERENCE_SHAPE_MESSAGE,
    },
  );

/** Why an entry of spec.envFrom is refused when it names no source or two. */
export const ENV_FROM_SHAPE_MESSAGE =
  'spec.envFrom[] must set exactly one of secretRef {name} or configMapRef {name}';

const LocalObjectName = (kind: string) =>
  z.object({ name: localObjectName(kind) }).describe(`A ${kind} in the same namespace.`);

export const EnvFromSource = z
  .object({
    prefix: z
      .string()
      .max(256)
      .meta({
        description: 'Prepended to every key of the source to make the variable names: a C identifier.',
        [CEL_RULES_KEY]: [
          celRule(
            `self.matches('${C_IDENTIFIER_REGEX}')`,
            'spec.envFrom[].prefix must be a C identifier ([A-Za-z_][A-Za-z0-9_]*): it starts environment variable names',
          ),
        ],
      })
      .optional(),
    secretRef: LocalObjectName('Secret').optional(),
    configMapRef: LocalObjectName('ConfigMap').optional(),
  })
  .meta({
    description:
      "Every key of a Secret or ConfigMap of this namespace as an environment variable (prefix + key), sent as the deployment's secrets. Keys that are not C identifiers (after the prefix) are skipped, as Kubernetes does.",
    [CEL_RULES_KEY]: [
      celRule(
        `(has(self.secretRef) ? 1 : 0) + (has(self.configMapRef) ? 1 : 0) == 1`,
        ENV_FROM_SHAPE_MESSAGE,
      ),
    ],
  })
  .refine((entry) => (entry.secretRef === undefined) !== (entry.configMapRef === undefined), {
    message: ENV_FROM_SHAPE_MESSAGE,
  });

export const ConnectionRef = z
  .object({
    kind: z
      .enum(CONNECTION_KINDS)
      .describe('PlatformConnection (in this namespace) or ClusterPlatformConnection.'),
    name: z.string().min(1).max(253).regex(DNS_SUBDOMAIN_PATTERN).describe('Name of the connection.'),
  })
  .describe(
    "The platform connection (region or self-hosted install, and credential) to deploy through; absent: the operator's default connection. Immutable.",
  );

export const DELETION_POLICIES = ['Delete', 'Orphan'] as const;

/** What happens to the tracing project when the operator deletes the deployment (Kubernetes' reclaim words). */
export const TRACING_PROJECT_DELETION_POLICIES = ['Retain', 'Delete'] as const;

/**
 * What the operator may do to the deployment (Crossplane's management policies, two of them):
 * Full manages it; ObserveOnly only reads it, never writes, never deletes, never adopts.
 */
export const MANAGEMENT_POLICIES = ['Full', 'ObserveOnly'] as const;

/** Fields that the control plane cannot change after creation (immutable `name`, `source`, "not changeable by PATCH"). */
export const IMMUTABLE_FIELDS: readonly (readonly string[])[] = [
  ['name'],
  ['source'],
  ['sourceConfig', 'integrationId'],
  ['sourceConfig', 'repoUrl'],
  ['sourceConfig', 'deploymentType'],
  ['sourceConfig', 'listenerId'],
  ['sourceConfig', 'listenerConfig', 'clusterNamespace'],
  // By the required name: the API server's CEL compares strings, not these objects.
  ['sourceConfig', 'integrationRef', 'name'],
  ['sourceConfig', 'listenerRef', 'name'],
  // Field by field: both are required, so each says whether the reference is there at all.
  ['connectionRef', 'kind'],
  ['connectionRef', 'name'],
];

/** A field of the spec tied to one source. */
export interface SourceField {
  path: readonly string[];
  source: (typeof SOURCES)[number];
}

/** Which source each source-specific field applies to (docs/api/control-plane.md, "Source configuration"). */
export const SOURCE_SPECIFIC_FIELDS: readonly SourceField[] = [
  { path: ['sourceConfig', 'integrationId'], source: 'repo_host' },
  { path: ['sourceConfig', 'integrationRef'], source: 'repo_host' },
  { path: ['sourceConfig', 'repoUrl'], source: 'repo_host' },
  { path: ['sourceConfig', 'deploymentType'], source: 'repo_host' },
  { path: ['sourceConfig', 'buildOnPush'], source: 'repo_host' },
  { path: ['sourceRevisionConfig', 'repoRef'], source: 'repo_host' },
  { path: ['sourceRevisionConfig', 'graphConfigPath'], source: 'repo_host' },
  { path: ['sourceConfig', 'customUrl'], source: 'external_container' },
  { path: ['sourceConfig', 'resourceSpec'], source: 'external_container' },
  { path: ['sourceConfig', 'listenerId'], source: 'external_container' },
  { path: ['sourceConfig', 'listenerRef'], source: 'external_container' },
  { path: ['sourceConfig', 'listenerConfig'], source: 'external_container' },
  { path: ['sourceRevisionConfig', 'imageUri'], source: 'external_container' },
];

/**
 * The fields a source cannot do without: the control plane answers 400 when one is missing,
 * so admission rejects it first, naming the field. internal_container has none here: the
 * spec describes no field for it, and imageUri applies to external_container only.
 */
export const SOURCE_REQUIRED_FIELDS: readonly SourceField[] = [
  { path: ['sourceConfig', 'repoUrl'], source: 'repo_host' },
  { path: ['sourceRevisionConfig', 'repoRef'], source: 'repo_host' },
  { path: ['sourceRevisionConfig', 'imageUri'], source: 'external_container' },
];

/** An id the control plane needs, given either as the id or as a name resolved on the object's connection. */
export interface IdOrName {
  id: readonly string[];
  ref: readonly string[];
  source: (typeof SOURCES)[number];
}

export const ID_OR_NAME_FIELDS: readonly IdOrName[] = [
  { id: ['sourceConfig', 'integrationId'], ref: ['sourceConfig', 'integrationRef'], source: 'repo_host' },
  { id: ['sourceConfig', 'listenerId'], ref: ['sourceConfig', 'listenerRef'], source: 'external_container' },
];

const display = (path: readonly string[]) => `spec.${path.join('.')}`;

const BUILD_ON_PUSH_PATH = ['sourceConfig', 'buildOnPush'];
const REPO_REF_PATH = ['sourceRevisionConfig', 'repoRef'];

const SPEC_RULES: CelRule[] = [
  ...IMMUTABLE_FIELDS.map((path) => immutableField(path, display(path))),
  ...SOURCE_SPECIFIC_FIELDS.map(({ path, source }) => onlyWithSource(path, display(path), source)),
  ...SOURCE_REQUIRED_FIELDS.map(({ path, source }) => requiredWithSource(path, display(path), source)),
  ...ID_OR_NAME_FIELDS.map(({ id, ref, source }) =>
    exactlyOneWithSource([id, ref], [display(id), display(ref)], source),
  ),
  celRule(
    `!(${presence('self', BUILD_ON_PUSH_PATH)} && self.sourceConfig.buildOnPush) || !(${presence('self', REPO_REF_PATH)} && self.sourceRevisionConfig.repoRef.startsWith('${TAG_REF_PREFIX}'))`,
    `spec.sourceConfig.buildOnPush cannot be true when spec.sourceRevisionConfig.repoRef is a tag (starts with ${TAG_REF_PREFIX})`,
    '.sourceConfig.buildOnPush',
  ),
];

export const RollbackPolicy = z
  .object({
    onFailure: z
      .boolean()
      .default(false)
      .describe(
        'When true, a revision that ends CREATE_FAILED, BUILD_FAILED or DEPLOY_FAILED, or fails spec.smokeTest, sets the deployment back to the image (external_container) or repoRef and graphConfigPath (repo_host) of the last revision in status.revisionHistory that was deployed and passed its smoke test; the failed spec is not sent again until it changes (Ready=False, reason RolledBack).',
      ),
  })
  .strict()
  .describe('Opt-in rollback of a failed revision to the last one that worked.');

export const AgentDeploymentSpec = z
  .object({
    name: z
      .string()
      .min(1)
      .max(253)
      .describe('Name of the deployment on the control plane; defaults to metadata.name. Immutable.')
      .optional(),
    source: z
      .enum(SOURCES)
      .describe(
        'Where the agent comes from: repo_host, external_container or internal_container. Immutable.',
      ),
    sourceConfig: SourceConfig.default({}),
    sourceRevisionConfig: SourceRevisionConfig.default({}),
    secrets: z
      .array(SecretReference)
      .max(LIMITS.secrets)
      .meta({
        description:
          'Secrets exposed to the deployment as environment variables, each read from a Secret key in this namespace. A change of a referenced value rolls out a new revision.',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      })
      .optional(),
    envFrom: z
      .array(EnvFromSource)
      .max(LIMITS.envFrom)
      .describe(
        'Whole Secrets and ConfigMaps of this namespace as environment variables, in order (a later source wins a name; spec.secrets wins over all). A change of a source rolls out a new revision.',
      )
      .optional(),
    deletionPolicy: z
      .enum(DELETION_POLICIES)
      .default('Delete')
      .describe(
        'On deletion of this object: Delete removes the deployment from the control plane, Orphan leaves it.',
      ),
    tracingProjectDeletionPolicy: z
      .enum(TRACING_PROJECT_DELETION_POLICIES)
      .default('Retain')
      .describe(
        'The tracing project the control plane created with the deployment (same name, status.tracingProject), when the operator deletes the deployment (deletionPolicy Delete): Retain keeps it and its traces, as the API does by default; Delete removes it with the deployment (delete_tracing_project=true). Only the project of the deployment this object owns is ever deleted.',
      ),
    suspend: z
      .boolean()
      .default(false)
      .describe(
        'When true the operator makes no writes to the control plane for this object (status still updates).',
      ),
    adoptExisting: z
      .boolean()
      .default(false)
      .describe(
        'When true an existing control-plane deployment of the same name is adopted instead of reported as a NameConflict.',
      ),
    managementPolicy: z
      .enum(MANAGEMENT_POLICIES)
      .default('Full')
      .describe(
        'Full: the operator creates, updates and deletes the deployment. ObserveOnly: status mirrors the deployment named by spec.name (or by the agentplatform.io/deployment-id annotation); the operator never writes to the control plane, never deletes, and adds no finalizer.',
      ),
    connectionRef: ConnectionRef.optional(),
    smokeTest: SmokeTest.optional(),
    export: ExportSpec.optional(),
    rollback: RollbackPolicy.optional(),
  })
  .meta({
    description: 'Desired state of the agent deployment on the control plane.',
    [CEL_RULES_KEY]: SPEC_RULES,
  });

export type ListenerConfig = z.infer<typeof ListenerConfig>;
export type SourceConfig = z.infer<typeof SourceConfig>;
export type SourceRevisionConfig = z.infer<typeof SourceRevisionConfig>;
export type SecretReference = z.infer<typeof SecretReference>;
export type EnvFromSource = z.infer<typeof EnvFromSource>;
export type ConnectionRef = z.infer<typeof ConnectionRef>;
export type DeletionPolicy = (typeof DELETION_POLICIES)[number];
export type ManagementPolicy = (typeof MANAGEMENT_POLICIES)[number];
/** The spec as the API server stores it: defaults applied. */
export type AgentDeploymentSpec = z.infer<typeof AgentDeploymentSpec>;
/** The spec as a user may write it: defaulted fields optional. */
export type AgentDeploymentSpecInput = z.input<typeof AgentDeploymentSpec>;
