// What the agent runtime emulator may read from this emulator's state: deployments with
// their active revision, and which tenants a key acts for; and where it traces a finished
// run (the deployment's tracing project). Nothing else crosses over.
import type { AgentDirectory, AgentRevision, AgentTrace, HostedDeployment } from '../agents/index.js';
import type { KeyRegistry } from '../http/api-keys.js';
import type { EmulatorStore } from './store.js';
import { activeRevisionId } from './wire-views.js';

/** Stores a finished run in the tenant's tracing project of that name (the platform data API's). */
export type TraceRecorder = (tenantId: string, projectName: string, trace: AgentTrace, now: number) => void;

export function agentDirectory(
  store: EmulatorStore,
  keys: KeyRegistry,
  clock: () => number,
  recordTrace?: TraceRecorder,
): AgentDirectory {
  return {
    ...(recordTrace === undefined
      ? {}
      : {
          recordTrace: (deployment: HostedDeployment, trace: AgentTrace) =>
            recordTrace(deployment.tenantId, deployment.name, trace, clock()),
        }),
    tenantsOfKey(key: string): readonly string[] | undefined {
      try {
        return keys.authenticate(key).tenantIds;
      } catch {
        return undefined;
      }
    },
    deployment(deploymentId: string): HostedDeployment | undefined {
      const now = clock();
      const record = store.findDeploymentAnyTenant(deploymentId, now);
      if (!record || record.deletedAt !== null) return undefined;
      const activeId = activeRevisionId(record, store.phaseMs, now);
      const active = record.revisions.find((revision) => revision.id === activeId);
      const activeRevision: AgentRevision | null = active
        ? {
            id: active.id,
            source: record.source,
            imageUri: active.config.image_uri,
            repoRef: active.config.repo_ref,
            commitSha: active.config.repo_commit_sha,
          }
        : null;
      return { id: record.id, tenantId: record.tenantId, name: record.name, activeRevision };
    },
  };
}
