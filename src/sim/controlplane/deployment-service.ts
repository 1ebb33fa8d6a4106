// Create and PATCH as state changes: validated requests in, stored records out. The 400
// rules live in request-rules.ts and resource-spec-rules.ts; this file decides what is
// stored and when a new revision is made.
import type {
  DeploymentCreateRequest,
  DeploymentPatchRequest,
  ResourceSpec,
  SourceConfig,
} from './schemas/index.js';
import { detailError } from '../http/http-error.js';
import { checkCreateRules, checkPatchRules } from './request-rules.js';
import { applyResourceSpecDefaults } from './resource-spec-defaults.js';
import { checkResourceSpecRules } from './resource-spec-rules.js';
import type { DeploymentRecord, EmulatorStore, StoredSourceConfig, TenantRecord } from './store.js';

function normalizedResourceSpec(spec: ResourceSpec | null | undefined): ResourceSpec | null {
  if (spec == null) return null;
  const normalized = applyResourceSpecDefaults(spec);
  checkResourceSpecRules(normalized);
  return normalized;
}

function storedSourceConfig(input: SourceConfig, resourceSpec: ResourceSpec | null): StoredSourceConfig {
  return {
    integration_id: input.integration_id?.toLowerCase() ?? null,
    repo_url: input.repo_url ?? null,
    deployment_type: input.deployment_type ?? null,
    build_on_push: input.build_on_push ?? null,
    custom_url: input.custom_url ?? null,
    resource_spec: resourceSpec,
    listener_id: input.listener_id?.toLowerCase() ?? null,
    listener_config: input.listener_config
      ? { cluster_namespace: input.listener_config.cluster_namespace ?? null }
      : null,
    install_command: input.install_command ?? null,
    build_command: input.build_command ?? null,
  };
}

/**
 * The address of the deployment's agent runtime, which this emulator serves. The platform
 * sets custom_url itself for repo_host; an external_container deployment that names no
 * address of its own gets it too, so that its agent can be reached. internal_container
 * takes no custom_url.
 */
function takesAutomaticCustomUrl(record: DeploymentRecord): boolean {
  if (record.source === 'repo_host') return true;
  return record.source === 'external_container' && record.sourceConfig.custom_url === null;
}

export function createDeployment(
  store: EmulatorStore,
  tenant: TenantRecord,
  request: DeploymentCreateRequest,
  now: number,
): DeploymentRecord {
  checkCreateRules(request, tenant, store.isNameTaken(tenant.id, request.name, now));
  const resourceSpec = normalizedResourceSpec(request.source_config.resource_spec);
  const revision = request.source_revision_config;
  const record = store.createDeployment(
    {
      tenantId: tenant.id,
      name: request.name,
      source: request.source,
      sourceConfig: storedSourceConfig(request.source_config, resourceSpec),
      revisionConfig: {
        repo_ref: revision.repo_ref ?? null,
        graph_config_path: revision.graph_config_path ?? null,
        image_uri: revision.image_uri ?? null,
      },
      secrets: request.secrets.map((s) => ({ name: s.name, value: s.value })),
    },
    now,
  );
  if (takesAutomaticCustomUrl(record)) record.sourceConfig.custom_url = `${store.agentBaseUrl}${record.id}`;
  return record;
}

/** Merges the PATCH (null or absent leaves a field as it is); returns whether a revision was made. */
export function patchDeployment(
  store: EmulatorStore,
  tenant: TenantRecord,
  record: DeploymentRecord,
  patch: DeploymentPatchRequest,
  now: number,
): boolean {
  if (record.deletedAt !== null) throw detailError(400, `Deployment ID ${record.id} is being deleted`);
  checkPatchRules(patch, record, tenant);
  const sourceConfigPatch = patch.source_config;
  const resourceSpec = normalizedResourceSpec(sourceConfigPatch?.resource_spec);
  const revisionPatch = patch.source_revision_config;
  // An empty secrets list is treated as absent (docs/api/control-plane.md).
  const secrets = patch.secrets && patch.secrets.length > 0 ? patch.secrets : null;

  const stored = record.sourceConfig;
  if (sourceConfigPatch) {
    const next = storedSourceConfig(sourceConfigPatch, resourceSpec);
    for (const field of Object.keys(next) as (keyof StoredSourceConfig)[]) {
      if (field === 'listener_config' || next[field] === null) continue;
      (stored as Record<keyof StoredSourceConfig, unknown>)[field] = next[field];
    }
    const namespace = next.listener_config?.cluster_namespace;
    if (namespace != null) stored.listener_config = { cluster_namespace: namespace };
  }
  for (const field of ['repo_ref', 'graph_config_path', 'image_uri'] as const) {
    const value = revisionPatch?.[field];
    if (value != null) record.revisionConfig[field] = value;
  }
  if (secrets) record.secrets = secrets.map((s) => ({ name: s.name, value: s.value }));
  record.updatedAt = now;

  const makesRevision =
    revisionPatch?.repo_ref != null ||
    revisionPatch?.graph_config_path != null ||
    revisionPatch?.image_uri != null ||
    secrets !== null ||
    resourceSpec !== null;
  if (makesRevision) store.addRevision(record, now);
  return makesRevision;
}
