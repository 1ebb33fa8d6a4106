// What the agent runtime needs to know about the platform that hosts it: which deployments
// exist, which revision of each is live, and which tenants a key may act for. The
// control-plane emulator provides it from its store; the runtime never reads that store.

export interface AgentRevision {
  id: string;
  source: string;
  imageUri: string | null;
  repoRef: string | null;
  commitSha: string | null;
}

export interface HostedDeployment {
  id: string;
  tenantId: string;
  name: string;
  /** The revision that answers, or null while none has reached DEPLOYED. */
  activeRevision: AgentRevision | null;
}

/** One finished run of an agent, as the platform records it: a trace of one root run. */
export interface AgentTrace {
  runId: string;
  threadId: string | null;
  startedAt: number;
  endedAt: number;
  status: 'success' | 'error' | 'interrupted';
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
  error: string | null;
  metadata: Record<string, unknown>;
}

export interface AgentDirectory {
  /** The tenants a key may act for; undefined for a key the platform does not know. */
  tenantsOfKey(key: string): readonly string[] | undefined;
  /** The deployment, or undefined when it does not exist or is being deleted. */
  deployment(deploymentId: string): HostedDeployment | undefined;
  /** Where a finished run is traced: the deployment's tracing project (absent: not traced). */
  recordTrace?(deployment: HostedDeployment, trace: AgentTrace): void;
}
