// The semantic (400) rules of create and PATCH: which fields apply to which source, what
// each source requires, build_on_push vs a tag ref, references to listeners and
// integrations of the tenant, names unique in a tenant, and the fields PATCH cannot change.
// Shape errors were already answered 422 by the schema; these see well-typed input.
import {
  TAG_REF_PREFIX,
  type DeploymentCreateRequest,
  type DeploymentPatchRequest,
  type Secret,
  type Source,
  type SourceConfig,
  type SourceRevisionConfigRequest,
} from './schemas/index.js';
import { detailError } from '../http/http-error.js';
import type { DeploymentRecord, TenantRecord } from './store.js';

type SourceConfigField = keyof SourceConfig;
type RevisionField = keyof SourceRevisionConfigRequest;

const CONTAINER_SOURCES: readonly Source[] = ['external_container', 'internal_container'];

/** Which sources may set each field (null or absent is always allowed). */
const SOURCE_CONFIG_APPLIES_TO: Record<SourceConfigField, readonly Source[]> = {
  integration_id: ['repo_host'],
  repo_url: ['repo_host'],
  deployment_type: ['repo_host'],
  build_on_push: ['repo_host'],
  // Set automatically (read-only) for repo_host; settable only for external_container.
  custom_url: ['external_container'],
  resource_spec: CONTAINER_SOURCES,
  listener_id: CONTAINER_SOURCES,
  listener_config: CONTAINER_SOURCES,
  // "JS deployments": built from a repository, so repo_host.
  install_command: ['repo_host'],
  build_command: ['repo_host'],
};

const REVISION_APPLIES_TO: Record<RevisionField, readonly Source[]> = {
  repo_ref: ['repo_host'],
  graph_config_path: ['repo_host'],
  image_uri: CONTAINER_SOURCES,
};

/** What each source must be created with. */
const REQUIRED_ON_CREATE: Record<Source, { sourceConfig: SourceConfigField[]; revision: RevisionField[] }> = {
  repo_host: { sourceConfig: ['integration_id', 'repo_url'], revision: ['repo_ref'] },
  external_container: { sourceConfig: ['listener_id'], revision: ['image_uri'] },
  internal_container: { sourceConfig: [], revision: ['image_uri'] },
};

/** source_config fields that PATCH may not change (listener_config.cluster_namespace too). */
export const IMMUTABLE_BY_PATCH: readonly SourceConfigField[] = [
  'integration_id',
  'repo_url',
  'deployment_type',
  'listener_id',
];

function checkApplicability(
  source: Source,
  sourceConfig: SourceConfig | null | undefined,
  revisionConfig: SourceRevisionConfigRequest | null | undefined,
): void {
  for (const [field, sources] of Object.entries(SOURCE_CONFIG_APPLIES_TO) as [
    SourceConfigField,
    readonly Source[],
  ][]) {
    if (sourceConfig?.[field] != null && !sources.includes(source)) {
      const why =
        field === 'custom_url' && source === 'repo_host' ? ' (it is set automatically and read-only)' : '';
      throw detailError(400, `source_config.${field} does not apply to source ${source}${why}`);
    }
  }
  for (const [field, sources] of Object.entries(REVISION_APPLIES_TO) as [
    RevisionField,
    readonly Source[],
  ][]) {
    if (revisionConfig?.[field] != null && !sources.includes(source)) {
      throw detailError(400, `source_revision_config.${field} does not apply to source ${source}`);
    }
  }
}

function checkTagRef(buildOnPush: boolean | null | undefined, repoRef: string | null | undefined): void {
  if (buildOnPush === true && repoRef?.startsWith(TAG_REF_PREFIX)) {
    throw detailError(
      400,
      `source_config.build_on_push cannot be true when source_revision_config.repo_ref is a tag (${TAG_REF_PREFIX}...)`,
    );
  }
}

function checkSecrets(secrets: readonly Secret[]): void {
  const seen = new Set<string>();
  secrets.forEach((secret, index) => {
    if (seen.has(secret.name))
      throw detailError(400, `secrets[${index}].name "${secret.name}" is not unique`);
    seen.add(secret.name);
  });
}

function checkIntegration(tenant: TenantRecord, integrationId: string | null | undefined): void {
  if (integrationId == null) return;
  if (!tenant.integrations.some((i) => i.id === integrationId.toLowerCase())) {
    throw detailError(
      400,
      `source_config.integration_id ${integrationId} is not an integration of this tenant`,
    );
  }
}

function checkListener(
  tenant: TenantRecord,
  listenerId: string | null | undefined,
  clusterNamespace: string | null | undefined,
): void {
  const listener =
    listenerId == null ? undefined : tenant.listeners.find((l) => l.id === listenerId.toLowerCase());
  if (listenerId != null && !listener) {
    throw detailError(400, `source_config.listener_id ${listenerId} is not a listener of this tenant`);
  }
  if (clusterNamespace == null) return;
  if (!listener) {
    throw detailError(
      400,
      'source_config.listener_config.cluster_namespace needs a source_config.listener_id',
    );
  }
  if (listener.compute_type !== 'cluster') {
    throw detailError(
      400,
      `source_config.listener_config.cluster_namespace applies only to a listener of compute type cluster (this one is ${listener.compute_type})`,
    );
  }
  if (!listener.cluster_namespaces.includes(clusterNamespace)) {
    throw detailError(
      400,
      `source_config.listener_config.cluster_namespace "${clusterNamespace}" is not one of the listener's namespaces (${listener.cluster_namespaces.join(', ')})`,
    );
  }
}

export function checkCreateRules(
  request: DeploymentCreateRequest,
  tenant: TenantRecord,
  nameTaken: boolean,
): void {
  if (request.name.trim() === '') throw detailError(400, 'name must not be empty');
  const { source, source_config: sourceConfig, source_revision_config: revisionConfig } = request;
  checkApplicability(source, sourceConfig, revisionConfig);
  const required = REQUIRED_ON_CREATE[source];
  for (const field of required.sourceConfig) {
    if (sourceConfig[field] == null)
      throw detailError(400, `source_config.${field} is required for source ${source}`);
  }
  for (const field of required.revision) {
    if (revisionConfig[field] == null) {
      throw detailError(400, `source_revision_config.${field} is required for source ${source}`);
    }
  }
  checkTagRef(sourceConfig.build_on_push, revisionConfig.repo_ref);
  checkIntegration(tenant, sourceConfig.integration_id);
  checkListener(tenant, sourceConfig.listener_id, sourceConfig.listener_config?.cluster_namespace);
  checkSecrets(request.secrets);
  if (nameTaken) throw detailError(400, `A deployment named "${request.name}" already exists in this tenant`);
}

/**
 * PATCH: a field PATCH cannot change is refused only when it would change; resending the
 * stored value (as a client that sends its whole desired config does) is accepted.
 */
export function checkPatchRules(
  patch: DeploymentPatchRequest,
  record: DeploymentRecord,
  tenant: TenantRecord,
): void {
  const sourceConfig = patch.source_config;
  const stored = record.sourceConfig;
  for (const field of IMMUTABLE_BY_PATCH) {
    const value = sourceConfig?.[field];
    if (value != null && String(value).toLowerCase() !== String(stored[field]).toLowerCase()) {
      throw detailError(400, `source_config.${field} cannot be changed by PATCH`);
    }
  }
  const namespace = sourceConfig?.listener_config?.cluster_namespace;
  if (namespace != null && namespace !== stored.listener_config?.cluster_namespace) {
    throw detailError(400, 'source_config.listener_config.cluster_namespace cannot be changed by PATCH');
  }
  const unchangedCustomUrl =
    sourceConfig?.custom_url != null &&
    record.source === 'repo_host' &&
    sourceConfig.custom_url === stored.custom_url;
  checkApplicability(
    record.source,
    unchangedCustomUrl ? { ...sourceConfig, custom_url: null } : sourceConfig,
    patch.source_revision_config,
  );
  checkTagRef(
    sourceConfig?.build_on_push ?? stored.build_on_push,
    patch.source_revision_config?.repo_ref ?? record.revisionConfig.repo_ref,
  );
  checkIntegration(tenant, sourceConfig?.integration_id);
  checkListener(tenant, stored.listener_id, namespace);
  if (patch.secrets) checkSecrets(patch.secrets);
}
