// The one place where CRD names (camelCase, Kubernetes style) meet wire names (snake_case,
// the control-plane spec's). Each object has a table of `crdName: wireName`; a nested object
// names its own table. The compile-time checks below make every table complete in both
// directions, so a field added to the CRD or to the wire model without a mapping fails the
// build rather than being dropped silently.
//
// Rules: a field absent in the CRD is absent on the wire (never null); the wire's null reads
// back as absent; values that are not nested objects, including the Kubernetes-shaped lists
// (volumes, volumeMounts, initContainers, sidecars, imagePullSecrets) and the label and
// annotation maps, go to the wire by reference, unchanged.
import type {
  DeploymentCreateRequest,
  ListenerConfig as WireListenerConfig,
  ResourceSpec as WireResourceSpec,
  Secret as WireSecret,
  SourceConfig as WireSourceConfig,
  SourceRevisionConfigRequest as WireSourceRevisionConfig,
} from '../../controlplane/models/index.js';
import { deploymentName } from './resource.js';
import type { ResourceSpec } from './resource-spec.js';
import type {
  AgentDeploymentSpec,
  ListenerConfig,
  SecretReference,
  SourceConfig,
  SourceRevisionConfig,
} from './spec.js';

/** A nested object: its wire name and the table of its own fields. */
interface NestedField {
  readonly wire: string;
  readonly fields: FieldTable;
}
type FieldTable = Readonly<Record<string, string | NestedField>>;

/** Every CRD field of `Crd` maps to some wire field of `Wire`. */
type CompleteTable<Crd, Wire> = {
  readonly [K in keyof Required<Crd>]: keyof Wire | { wire: keyof Wire; fields: FieldTable };
};
type WireNamesOf<T> = { [K in keyof T]: T[K] extends { wire: infer W } ? W : T[K] }[keyof T];
/** Resolves to `true` only when every wire field is reached by the table. */
type CoversWire<Table, Wire> = [Exclude<keyof Wire, WireNamesOf<Table>>] extends [never] ? true : false;
type MustBeTrue<T extends true> = T;

export const LISTENER_CONFIG_FIELDS = {
  clusterNamespace: 'cluster_namespace',
} as const satisfies CompleteTable<ListenerConfig, WireListenerConfig>;

export const RESOURCE_SPEC_FIELDS = {
  minScale: 'min_scale',
  maxScale: 'max_scale',
  cpu: 'cpu',
  cpuLimit: 'cpu_limit',
  memoryMb: 'memory_mb',
  memoryLimitMb: 'memory_limit_mb',
  queueMinScale: 'queue_min_scale',
  queueMaxScale: 'queue_max_scale',
  queueCpu: 'queue_cpu',
  queueCpuLimit: 'queue_cpu_limit',
  queueMemoryMb: 'queue_memory_mb',
  queueMemoryLimitMb: 'queue_memory_limit_mb',
  orchestratorCpu: 'orchestrator_cpu',
  orchestratorCpuLimit: 'orchestrator_cpu_limit',
  orchestratorMemoryMb: 'orchestrator_memory_mb',
  orchestratorMemoryLimitMb: 'orchestrator_memory_limit_mb',
  orchestratorMinScale: 'orchestrator_min_scale',
  orchestratorMaxScale: 'orchestrator_max_scale',
  executorCpu: 'executor_cpu',
  executorCpuLimit: 'executor_cpu_limit',
  executorMemoryMb: 'executor_memory_mb',
  executorMemoryLimitMb: 'executor_memory_limit_mb',
  cacheCpu: 'cache_cpu',
  cacheCpuLimit: 'cache_cpu_limit',
  cacheMemoryMb: 'cache_memory_mb',
  labels: 'labels',
  annotations: 'annotations',
  serviceAccountName: 'service_account_name',
  imagePullSecrets: 'image_pull_secrets',
  volumes: 'volumes',
  volumeMounts: 'volume_mounts',
  initContainers: 'init_containers',
  sidecars: 'sidecars',
  dbCpu: 'db_cpu',
  dbCpuLimit: 'db_cpu_limit',
  dbMemoryMb: 'db_memory_mb',
  dbMemoryLimitMb: 'db_memory_limit_mb',
  dbStorageGi: 'db_storage_gi',
  dbMaxConnections: 'db_max_connections',
} as const satisfies CompleteTable<ResourceSpec, WireResourceSpec>;

/** Names resolved to ids on the object's connection: they reach the wire as the ids (see ResolvedIds). */
type NameRefField = 'listenerRef' | 'integrationRef';

/** The ids that `listenerRef` and `integrationRef` resolved to. */
export interface ResolvedIds {
  listenerId?: string;
  integrationId?: string;
}

export const SOURCE_CONFIG_FIELDS = {
  integrationId: 'integration_id',
  repoUrl: 'repo_url',
  deploymentType: 'deployment_type',
  buildOnPush: 'build_on_push',
  customUrl: 'custom_url',
  resourceSpec: { wire: 'resource_spec', fields: RESOURCE_SPEC_FIELDS },
  listenerId: 'listener_id',
  listenerConfig: { wire: 'listener_config', fields: LISTENER_CONFIG_FIELDS },
  installCommand: 'install_command',
  buildCommand: 'build_command',
} as const satisfies CompleteTable<Omit<SourceConfig, NameRefField>, WireSourceConfig>;

export const SOURCE_REVISION_CONFIG_FIELDS = {
  repoRef: 'repo_ref',
  graphConfigPath: 'graph_config_path',
  imageUri: 'image_uri',
} as const satisfies CompleteTable<SourceRevisionConfig, WireSourceRevisionConfig>;

export type TablesCoverTheWire = [
  MustBeTrue<CoversWire<typeof LISTENER_CONFIG_FIELDS, WireListenerConfig>>,
  MustBeTrue<CoversWire<typeof RESOURCE_SPEC_FIELDS, WireResourceSpec>>,
  MustBeTrue<CoversWire<typeof SOURCE_CONFIG_FIELDS, WireSourceConfig>>,
  MustBeTrue<CoversWire<typeof SOURCE_REVISION_CONFIG_FIELDS, WireSourceRevisionConfig>>,
];

type PlainObject = Record<string, unknown>;

function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toWire(table: FieldTable, crd: PlainObject): PlainObject {
  const wire: PlainObject = {};
  for (const [crdName, mapping] of Object.entries(table)) {
    const value = crd[crdName];
    if (value === undefined || value === null) continue;
    if (typeof mapping === 'string') wire[mapping] = value;
    else wire[mapping.wire] = isPlainObject(value) ? toWire(mapping.fields, value) : value;
  }
  return wire;
}

/**
 * Drops null-valued properties at any depth. The control plane answers with explicit nulls
 * for unset fields where the CRD simply has no field; reading them back as absent makes the
 * two comparable.
 */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isPlainObject(value)) return value;
  const out: PlainObject = {};
  for (const [key, inner] of Object.entries(value)) if (inner !== null) out[key] = withoutNulls(inner);
  return out;
}

function fromWire(table: FieldTable, wire: PlainObject): PlainObject {
  const crd: PlainObject = {};
  for (const [crdName, mapping] of Object.entries(table)) {
    const wireName = typeof mapping === 'string' ? mapping : mapping.wire;
    const value = wire[wireName];
    if (value === undefined || value === null) continue;
    if (typeof mapping !== 'string' && isPlainObject(value)) crd[crdName] = fromWire(mapping.fields, value);
    else crd[crdName] = withoutNulls(value);
  }
  return crd;
}

// The typed entry points. The casts are sound because the tables are complete in both
// directions (checked above) and only rename keys; test/api/wire-mapping.test.ts checks
// every field by value.

export function toWireResourceSpec(spec: ResourceSpec): WireResourceSpec {
  return toWire(RESOURCE_SPEC_FIELDS, spec) as WireResourceSpec;
}

export function fromWireResourceSpec(spec: WireResourceSpec): ResourceSpec {
  return fromWire(RESOURCE_SPEC_FIELDS, spec) as ResourceSpec;
}

export function toWireListenerConfig(config: ListenerConfig): WireListenerConfig {
  return toWire(LISTENER_CONFIG_FIELDS, config) as WireListenerConfig;
}

export function fromWireListenerConfig(config: WireListenerConfig): ListenerConfig {
  return fromWire(LISTENER_CONFIG_FIELDS, config) as ListenerConfig;
}

/** `spec.sourceConfig` as the wire's `source_config`; an absent sourceConfig is `{}`. */
export function toWireSourceConfig(config: SourceConfig | undefined): WireSourceConfig {
  return toWire(SOURCE_CONFIG_FIELDS, config ?? {}) as WireSourceConfig;
}

export function fromWireSourceConfig(config: WireSourceConfig): SourceConfig {
  return fromWire(SOURCE_CONFIG_FIELDS, config) as SourceConfig;
}

/** `spec.sourceRevisionConfig` as the wire's `source_revision_config`; absent is `{}`. */
export function toWireSourceRevisionConfig(
  config: SourceRevisionConfig | undefined,
): WireSourceRevisionConfig {
  return toWire(SOURCE_REVISION_CONFIG_FIELDS, config ?? {}) as WireSourceRevisionConfig;
}

/** Reads a Deployment's or Revision's `source_revision_config`; the response-only `repo_commit_sha` is left out. */
export function fromWireSourceRevisionConfig(config: WireSourceRevisionConfig): SourceRevisionConfig {
  return fromWire(SOURCE_REVISION_CONFIG_FIELDS, config) as SourceRevisionConfig;
}

/** One key of a Secret or ConfigMap of the object's namespace that an entry of spec.secrets reads. */
export interface KeySource {
  kind: 'Secret' | 'ConfigMap';
  name: string;
  key: string;
}

/** The outcome of resolving secret references: the wire list, or the first reference that did not resolve. */
export type SecretResolution =
  { ok: true; secrets: WireSecret[] } | { ok: false; missing: { env: string; source: KeySource } };

/** The Secret or ConfigMap key an entry reads, or undefined for a plain value. */
export function keySourceOf(entry: SecretReference): KeySource | undefined {
  const { secretKeyRef, configMapKeyRef } = entry.valueFrom ?? {};
  if (secretKeyRef) return { kind: 'Secret', ...secretKeyRef };
  if (configMapKeyRef) return { kind: 'ConfigMap', ...configMapKeyRef };
  return undefined;
}

/**
 * `spec.secrets` as the wire's `secrets`, reading each referenced value through `lookup` (the
 * caller's view of Kubernetes Secrets and ConfigMaps); a plain `value` is sent as written. A
 * missing object or key is reported by name, never by value.
 */
export function toWireSecrets(
  secrets: readonly SecretReference[] | undefined,
  lookup: (source: KeySource) => string | undefined,
): SecretResolution {
  const wire: WireSecret[] = [];
  for (const secret of secrets ?? []) {
    if (secret.value !== undefined) {
      wire.push({ name: secret.name, value: secret.value });
      continue;
    }
    // The schema admits exactly one form; this guards a spec that skipped it.
    const source = keySourceOf(secret);
    if (source === undefined) throw new Error(`secrets (${secret.name}): neither value nor valueFrom`);
    const value = lookup(source);
    if (value === undefined) return { ok: false, missing: { env: secret.name, source } };
    wire.push({ name: secret.name, value });
  }
  return { ok: true, secrets: wire };
}

/** The POST /v2/deployments body for an object whose secret values (and named ids) are already resolved. */
export function toWireCreateRequest(
  obj: { metadata: { name: string }; spec: AgentDeploymentSpec },
  secrets: WireSecret[],
  ids: ResolvedIds = {},
): DeploymentCreateRequest {
  return {
    name: deploymentName(obj),
    source: obj.spec.source,
    source_config: {
      ...toWireSourceConfig(obj.spec.sourceConfig),
      ...(ids.listenerId === undefined ? {} : { listener_id: ids.listenerId }),
      ...(ids.integrationId === undefined ? {} : { integration_id: ids.integrationId }),
    },
    source_revision_config: toWireSourceRevisionConfig(obj.spec.sourceRevisionConfig),
    secrets,
  };
}
