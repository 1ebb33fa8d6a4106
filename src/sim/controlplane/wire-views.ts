// Stored records -> the spec's response shapes (Deployment, Revision, Listener,
// Integration), with states derived from the clock at the moment of reading.
import type { DeploymentStatus } from './schemas/index.js';
import { imageVersionOf } from './image-version.js';
import { resourceSpecToWire } from './resource-spec-defaults.js';
import { revisionStateAt } from './revision-lifecycle.js';
import type { DeploymentRecord, IntegrationRecord, ListenerRecord, RevisionRecord } from './store.js';

const iso = (ms: number): string => new Date(ms).toISOString();

export function deploymentStatusAt(
  record: DeploymentRecord,
  phaseMs: number,
  now: number,
): { status: DeploymentStatus; since: number } {
  if (record.deletedAt !== null) return { status: 'AWAITING_DELETE', since: record.deletedAt };
  const readyAt = record.createdAt + phaseMs;
  return now >= readyAt
    ? { status: 'READY', since: readyAt }
    : { status: 'AWAITING_DATABASE', since: record.createdAt };
}

/** The newest revision that is DEPLOYED now; an older DEPLOYED one stays active until then. */
function activeRevision(record: DeploymentRecord, phaseMs: number, now: number): RevisionRecord | undefined {
  for (let i = record.revisions.length - 1; i >= 0; i--) {
    const revision = record.revisions[i];
    if (revision && revisionStateAt(revision.timeline, phaseMs, now).status === 'DEPLOYED') return revision;
  }
  return undefined;
}

export function activeRevisionId(record: DeploymentRecord, phaseMs: number, now: number): string | null {
  return activeRevision(record, phaseMs, now)?.id ?? null;
}

export function deploymentToWire(
  record: DeploymentRecord,
  phaseMs: number,
  now: number,
): Record<string, unknown> {
  const latest = record.revisions[record.revisions.length - 1];
  const { status, since } = deploymentStatusAt(record, phaseMs, now);
  const active = activeRevision(record, phaseMs, now);
  const sourceConfig = record.sourceConfig;
  return {
    name: record.name,
    source: record.source,
    source_config: {
      ...sourceConfig,
      resource_spec: sourceConfig.resource_spec ? resourceSpecToWire(sourceConfig.resource_spec) : null,
      listener_config: sourceConfig.listener_config ? { ...sourceConfig.listener_config } : null,
    },
    source_revision_config: {
      ...record.revisionConfig,
      repo_commit_sha: latest?.config.repo_commit_sha ?? null,
    },
    secrets: record.secrets.map((secret) => ({ ...secret })),
    id: record.id,
    tenant_id: record.tenantId,
    created_at: iso(record.createdAt),
    updated_at: iso(Math.max(record.updatedAt, since)),
    status,
    latest_revision_id: latest?.id ?? null,
    active_revision_id: active?.id ?? null,
    image_version: imageVersionOf(active?.config.image_uri),
  };
}

export function revisionToWire(
  record: DeploymentRecord,
  revision: RevisionRecord,
  phaseMs: number,
  now: number,
): Record<string, unknown> {
  const state = revisionStateAt(revision.timeline, phaseMs, now);
  return {
    id: revision.id,
    created_at: iso(revision.timeline.createdAt),
    updated_at: iso(state.since),
    status: state.status,
    source: record.source,
    source_revision_config: { ...revision.config },
  };
}

export function listenerToWire(listener: ListenerRecord): Record<string, unknown> {
  return {
    id: listener.id,
    compute_type: listener.compute_type,
    compute_id: listener.compute_id,
    compute_config: { cluster_namespaces: [...listener.cluster_namespaces] },
    created_at: iso(listener.createdAt),
    updated_at: iso(listener.createdAt),
  };
}

export function integrationToWire(integration: IntegrationRecord): Record<string, unknown> {
  return { id: integration.id, installation_id: integration.installation_id, name: integration.name };
}
