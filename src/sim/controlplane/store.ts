// All emulator state, in memory: tenants with their listeners and integrations,
// deployments with their revisions, tracing projects, and injected revision failures.
// Time is passed in by the caller (its clock), never read here, so state is a pure
// function of the calls made and the times they were made at.
import type { ResourceSpec, Secret, Source, SourceConfig, SourceRevisionConfig } from './schemas/index.js';
import { deriveUuid, fakeCommitSha, newUuid } from '../http/ids.js';
import type { FailureStatus, RevisionTimeline } from './revision-lifecycle.js';
import { ownProjects, type TracingProjectsPort } from './tracing-projects.js';

export interface ListenerRecord {
  id: string;
  compute_type: string;
  compute_id: string;
  cluster_namespaces: string[];
  createdAt: number;
}

export interface IntegrationRecord {
  id: string;
  installation_id: string | number;
  name: string;
}

export interface TracingProjectRecord {
  id: string;
  tenantId: string;
  name: string;
  deploymentId: string;
  createdAt: number;
}

/** source_config as stored: every field present, null when unset. */
export type StoredSourceConfig = { [K in keyof SourceConfig]-?: Exclude<SourceConfig[K], undefined> } & {
  resource_spec: ResourceSpec | null;
};
export type StoredRevisionConfig = {
  [K in keyof SourceRevisionConfig]-?: Exclude<SourceRevisionConfig[K], undefined>;
};

export interface RevisionRecord {
  id: string;
  timeline: RevisionTimeline;
  config: StoredRevisionConfig;
}

export interface DeploymentRecord {
  id: string;
  /** Creation order across the store: a list by ids answers in it without scanning the tenant. */
  sequence: number;
  tenantId: string;
  name: string;
  source: Source;
  sourceConfig: StoredSourceConfig;
  /** The latest revision's config (repo_ref, graph_config_path, image_uri). */
  revisionConfig: Omit<StoredRevisionConfig, 'repo_commit_sha'>;
  secrets: Secret[];
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
  revisions: RevisionRecord[];
}

export interface TenantRecord {
  id: string;
  listeners: ListenerRecord[];
  integrations: IntegrationRecord[];
  /** Insertion order is creation order, which is the order lists answer in. */
  deployments: Map<string, DeploymentRecord>;
  /** Names in use (until a deletion completes), so uniqueness is O(1) with many deployments. */
  namesInUse: Set<string>;
}

interface FailureInjection {
  deploymentName: string | null;
  status: FailureStatus;
  remaining: number;
}

export const DEFAULT_CLUSTER_NAMESPACES = ['default', 'agents'];

export class EmulatorStore {
  private readonly tenants = new Map<string, TenantRecord>();
  private readonly deploymentsById = new Map<string, DeploymentRecord>();
  private readonly tracingProjects = new Map<string, TracingProjectRecord>();
  private failureInjections: FailureInjection[] = [];
  private nextSequence = 0;
  /** Deleted deployments in deletion order; with one phase length, that is also expiry order. */
  private pendingDeletions: DeploymentRecord[] = [];
  /** Where deployments' runtimes answer (`<url>/agents/`); known once the server listens. */
  agentBaseUrl = '';
  private projects: TracingProjectsPort;

  constructor(
    private readonly tenantIds: readonly string[],
    readonly phaseMs: number,
    now: number,
    /** Who holds the tracing projects (the platform data API's sessions); absent: this store. */
    private readonly projectsPort?: TracingProjectsPort,
  ) {
    this.projects = projectsPort ?? ownProjects(newUuid);
    this.seed(now);
  }

  private seed(now: number): void {
    for (const tenantId of this.tenantIds) {
      this.tenants.set(tenantId, {
        id: tenantId,
        listeners: [
          {
            id: deriveUuid('agent-operator-emulator', 'listener', tenantId),
            compute_type: 'cluster',
            compute_id: 'emulator-cluster',
            cluster_namespaces: [...DEFAULT_CLUSTER_NAMESPACES],
            createdAt: now,
          },
        ],
        integrations: [
          {
            id: deriveUuid('agent-operator-emulator', 'integration', tenantId),
            installation_id: Number.parseInt(deriveUuid('installation', tenantId).slice(0, 7), 16),
            name: 'emulator-repo-host',
          },
        ],
        deployments: new Map(),
        namesInUse: new Set(),
      });
    }
  }

  /** Clears deployments, tracing projects and injected failures; re-seeds each tenant's defaults. */
  reset(now: number): void {
    this.tenants.clear();
    this.deploymentsById.clear();
    this.tracingProjects.clear();
    // A port's holder empties itself on the same reset (the embedder's onReset).
    if (this.projectsPort === undefined) this.projects = ownProjects(newUuid);
    this.failureInjections = [];
    this.pendingDeletions = [];
    this.seed(now);
  }

  tenant(tenantId: string): TenantRecord | undefined {
    return this.tenants.get(tenantId);
  }

  allTenants(): TenantRecord[] {
    return [...this.tenants.values()];
  }

  /** Forgets deployments whose AWAITING_DELETE phase is over; their names are free again. */
  sweep(now: number): void {
    let expired = 0;
    for (const record of this.pendingDeletions) {
      if (record.deletedAt === null || record.deletedAt + this.phaseMs > now) break;
      const tenant = this.tenants.get(record.tenantId);
      tenant?.deployments.delete(record.id);
      tenant?.namesInUse.delete(record.name);
      this.deploymentsById.delete(record.id);
      expired++;
    }
    if (expired > 0) this.pendingDeletions = this.pendingDeletions.slice(expired);
  }

  findDeployment(tenantId: string, deploymentId: string, now: number): DeploymentRecord | undefined {
    this.sweep(now);
    const record = this.deploymentsById.get(deploymentId.toLowerCase());
    return record && record.tenantId === tenantId ? record : undefined;
  }

  findDeploymentAnyTenant(deploymentId: string, now: number): DeploymentRecord | undefined {
    this.sweep(now);
    return this.deploymentsById.get(deploymentId.toLowerCase());
  }

  allDeployments(now: number): DeploymentRecord[] {
    this.sweep(now);
    return [...this.deploymentsById.values()];
  }

  isNameTaken(tenantId: string, name: string, now: number): boolean {
    this.sweep(now);
    return this.tenants.get(tenantId)?.namesInUse.has(name) ?? false;
  }

  createDeployment(
    fields: Pick<
      DeploymentRecord,
      'tenantId' | 'name' | 'source' | 'sourceConfig' | 'revisionConfig' | 'secrets'
    >,
    now: number,
  ): DeploymentRecord {
    const tenant = this.tenants.get(fields.tenantId);
    if (!tenant) throw new Error(`unknown tenant ${fields.tenantId}`);
    const record: DeploymentRecord = {
      ...fields,
      id: newUuid(),
      sequence: this.nextSequence++,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
      revisions: [],
    };
    tenant.deployments.set(record.id, record);
    tenant.namesInUse.add(record.name);
    this.deploymentsById.set(record.id, record);
    this.ensureTracingProject(record, now);
    this.addRevision(record, now);
    return record;
  }

  private ensureTracingProject(record: DeploymentRecord, now: number): void {
    const key = `${record.tenantId}/${record.name}`;
    // A project kept from an earlier deployment of the same name is reused, as the service does.
    const id = this.projects.ensure(record.tenantId, record.name, now);
    const existing = this.tracingProjects.get(key);
    if (existing?.id === id) existing.deploymentId = record.id;
    else {
      this.tracingProjects.set(key, {
        id,
        tenantId: record.tenantId,
        name: record.name,
        deploymentId: record.id,
        createdAt: now,
      });
    }
  }

  listTracingProjects(): TracingProjectRecord[] {
    return [...this.tracingProjects.values()];
  }

  /** A new revision from the deployment's current config; older revisions in flight end SKIPPED. */
  addRevision(record: DeploymentRecord, now: number, commitSha?: string): RevisionRecord {
    for (const previous of record.revisions) {
      if (previous.timeline.supersededAt === null) previous.timeline.supersededAt = now;
    }
    const revision: RevisionRecord = {
      id: newUuid(),
      timeline: {
        source: record.source,
        createdAt: now,
        supersededAt: null,
        failure: this.takeFailure(record.name),
      },
      config: {
        ...record.revisionConfig,
        repo_commit_sha: record.source === 'repo_host' ? (commitSha ?? fakeCommitSha()) : null,
      },
    };
    record.revisions.push(revision);
    record.updatedAt = now;
    return revision;
  }

  injectRevisionFailure(deploymentName: string | null, status: FailureStatus, count: number): void {
    this.failureInjections.push({ deploymentName, status, remaining: count });
  }

  private takeFailure(deploymentName: string): FailureStatus | null {
    const injection = this.failureInjections.find(
      (f) => f.remaining > 0 && (f.deploymentName === null || f.deploymentName === deploymentName),
    );
    if (!injection) return null;
    injection.remaining--;
    if (injection.remaining === 0)
      this.failureInjections = this.failureInjections.filter((f) => f !== injection);
    return injection.status;
  }

  markDeleted(record: DeploymentRecord, now: number, deleteTracingProject: boolean): void {
    if (record.deletedAt !== null) return;
    record.deletedAt = now;
    record.updatedAt = now;
    this.pendingDeletions.push(record);
    if (deleteTracingProject) this.removeTracingProject(record, now);
    this.sweep(now);
  }

  /** Only the project this deployment was created with: never one found by name alone. */
  private removeTracingProject(record: DeploymentRecord, now: number): void {
    const key = `${record.tenantId}/${record.name}`;
    const project = this.tracingProjects.get(key);
    if (project?.deploymentId !== record.id) return;
    this.projects.remove(record.tenantId, project.id, now);
    this.tracingProjects.delete(key);
  }

  addListener(tenant: TenantRecord, listener: Omit<ListenerRecord, 'id'>): ListenerRecord {
    const record = { ...listener, id: newUuid() };
    tenant.listeners.push(record);
    return record;
  }

  addIntegration(tenant: TenantRecord, integration: Omit<IntegrationRecord, 'id'>): IntegrationRecord {
    const record = { ...integration, id: newUuid() };
    tenant.integrations.push(record);
    return record;
  }
}
