// The emulator's transcription of the deployment resource and its request bodies, from the
// control-plane API document ("Deployment", "DeploymentCreateRequest", "SourceConfig",
// "ListenerConfig", "SourceRevisionConfig", "Secret") and, for PATCH and the production-only
// status, the reference notes.
import { z } from 'zod';
import { ResourceSpec } from './resource-spec.js';

export const SOURCES = ['repo_host', 'external_container', 'internal_container'] as const;
export const Source = z.enum(SOURCES);
export type Source = z.infer<typeof Source>;

export const DEPLOYMENT_TYPES = ['dev_free', 'dev', 'prod'] as const;

/** The document's five values, and AWAITING_FINAL_DELETE, which production also reports. */
export const DEPLOYMENT_STATUSES = [
  'AWAITING_DATABASE',
  'READY',
  'UNUSED',
  'AWAITING_DELETE',
  'UNKNOWN',
  'AWAITING_FINAL_DELETE',
] as const;
export const DeploymentStatus = z.enum(DEPLOYMENT_STATUSES);
export type DeploymentStatus = z.infer<typeof DeploymentStatus>;

/** "a tag by its full ref path beginning refs/tags/". */
export const TAG_REF_PREFIX = 'refs/tags/';

export const ListenerConfig = z.object({ cluster_namespace: z.string().nullish() });

/** "The request and response objects have the same fields." */
export const SourceConfig = z.object({
  integration_id: z.uuid().nullish(),
  repo_url: z.string().nullish(),
  deployment_type: z.enum(DEPLOYMENT_TYPES).nullish(),
  build_on_push: z.boolean().nullish(),
  custom_url: z.string().nullish(),
  resource_spec: ResourceSpec.nullish(),
  listener_id: z.uuid().nullish(),
  listener_config: ListenerConfig.nullish(),
  install_command: z.string().nullish(),
  build_command: z.string().nullish(),
});
export type SourceConfig = z.infer<typeof SourceConfig>;

export const SourceRevisionConfigRequest = z.object({
  repo_ref: z.string().nullish(),
  graph_config_path: z.string().nullish(),
  image_uri: z.string().nullish(),
});
export type SourceRevisionConfigRequest = z.infer<typeof SourceRevisionConfigRequest>;

/** The response adds the read-only commit. */
export const SourceRevisionConfig = SourceRevisionConfigRequest.extend({
  repo_commit_sha: z.string().nullish(),
});
export type SourceRevisionConfig = z.infer<typeof SourceRevisionConfig>;

export const Secret = z.object({ name: z.string(), value: z.string() });
export type Secret = z.infer<typeof Secret>;

export const DeploymentCreateRequest = z.object({
  name: z.string(),
  source: Source,
  source_config: SourceConfig,
  source_revision_config: SourceRevisionConfigRequest,
  secrets: z.array(Secret),
});
export type DeploymentCreateRequest = z.infer<typeof DeploymentCreateRequest>;

/** PATCH (reference notes): every field optional; null or absent means "leave as is". */
export const DeploymentPatchRequest = z.object({
  source_config: SourceConfig.nullish(),
  source_revision_config: SourceRevisionConfigRequest.nullish(),
  secrets: z.array(Secret).nullish(),
});
export type DeploymentPatchRequest = z.infer<typeof DeploymentPatchRequest>;

const dateTime = z.iso.datetime({ offset: true });

/** The response of create and GET: what the emulator's wire views must produce. */
export const Deployment = z.object({
  name: z.string(),
  source: Source,
  source_config: SourceConfig,
  source_revision_config: SourceRevisionConfig,
  secrets: z.array(Secret),
  id: z.uuid(),
  tenant_id: z.uuid(),
  created_at: dateTime,
  updated_at: dateTime,
  status: DeploymentStatus,
  latest_revision_id: z.uuid().nullable(),
  active_revision_id: z.uuid().nullable(),
  image_version: z.string().nullish(),
});
