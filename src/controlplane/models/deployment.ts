// Deployment and its configuration objects (docs/api/control-plane.md, "Resources"), plus
// the PATCH body described there under "Operations". Every config field is
// nullable; which source a field applies to is checked by the server against `source`.
import { z } from 'zod';
import { ResourceSpec } from './resource-spec.js';

export const SOURCES = ['repo_host', 'external_container', 'internal_container'] as const;
export const Source = z.enum(SOURCES);
export type Source = z.infer<typeof Source>;

export const DEPLOYMENT_TYPES = ['dev_free', 'dev', 'prod'] as const;

/**
 * Deployment status values. The spec names the first five; production also reports
 * AWAITING_FINAL_DELETE (docs/api/control-plane.md), so a client must accept it.
 */
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

/** A tag ref, which forbids build_on_push (docs/api/control-plane.md, "Revision configuration"). */
export const TAG_REF_PREFIX = 'refs/tags/';

export const ListenerConfig = z.object({
  cluster_namespace: z.string().nullish(),
});

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
/** The request object has the same fields as the response (the spec says so). */
export const SourceConfigRequest = SourceConfig;

export const SourceRevisionConfigRequest = z.object({
  repo_ref: z.string().nullish(),
  graph_config_path: z.string().nullish(),
  image_uri: z.string().nullish(),
});
export const SourceRevisionConfig = SourceRevisionConfigRequest.extend({
  repo_commit_sha: z.string().nullish(),
});

export const Secret = z.object({
  name: z.string(),
  value: z.string(),
});

export const DeploymentCreateRequest = z.object({
  name: z.string(),
  source: Source,
  source_config: SourceConfigRequest,
  source_revision_config: SourceRevisionConfigRequest,
  secrets: z.array(Secret),
});

/** PATCH body: every field optional; null or absent means "leave as is". */
export const DeploymentPatchRequest = z.object({
  source_config: SourceConfigRequest.nullish(),
  source_revision_config: SourceRevisionConfigRequest.nullish(),
  secrets: z.array(Secret).nullish(),
});

const timestamp = z.iso.datetime({ offset: true });

export const Deployment = z.object({
  name: z.string(),
  source: Source,
  source_config: SourceConfig,
  source_revision_config: SourceRevisionConfig,
  secrets: z.array(Secret),
  id: z.uuid(),
  tenant_id: z.uuid(),
  created_at: timestamp,
  updated_at: timestamp,
  status: DeploymentStatus,
  latest_revision_id: z.uuid().nullable(),
  active_revision_id: z.uuid().nullable(),
  image_version: z.string().nullish(),
});

export type ListenerConfig = z.infer<typeof ListenerConfig>;
export type SourceConfig = z.infer<typeof SourceConfig>;
export type SourceRevisionConfigRequest = z.infer<typeof SourceRevisionConfigRequest>;
export type SourceRevisionConfig = z.infer<typeof SourceRevisionConfig>;
export type Secret = z.infer<typeof Secret>;
export type DeploymentCreateRequest = z.infer<typeof DeploymentCreateRequest>;
export type DeploymentPatchRequest = z.infer<typeof DeploymentPatchRequest>;
export type Deployment = z.infer<typeof Deployment>;
