// Every Kubernetes permission the operator uses, in one list. The chart's Role/ClusterRole
// rules must equal it (test/packaging/rbac-from-code.test.ts renders the chart and
// compares), and a test records the operator's requests against the Kubernetes emulator
// and checks each one is listed here (test/operator/rbac-requests.test.ts). Granting a
// verb the code never uses only widens what a compromised operator could do.

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';

export interface PermissionRule {
  apiGroup: string;
  /** `plural` or `plural/subresource`. */
  resource: string;
  verbs: readonly Verb[];
}

/**
 * Granted in every watched namespace (a ClusterRole when all namespaces are watched).
 * AgentDeployments are read through an informer (list + watch). Secrets are watched for
 * their names and resourceVersions only (the cache drops everything else on arrival), and
 * the values of referenced Secrets are read by name (get), in the referencing object's own
 * namespace. Kubernetes RBAC cannot narrow list/watch to the metadata, so the grant is what
 * it is; docs/security.md says what the code does with it. The operator writes AgentDeployments only by merge patch (finalizers,
 * annotations) and their status subresource only by merge patch; Events go through
 * events.k8s.io only, created once and patched when they repeat.
 */
export const WATCH_PERMISSIONS: readonly PermissionRule[] = [
  { apiGroup: 'agentplatform.io', resource: 'agentdeployments', verbs: ['list', 'watch', 'patch'] },
  { apiGroup: 'agentplatform.io', resource: 'agentdeployments/status', verbs: ['patch'] },
  // spec.export: the exported ConfigMaps carry a controller ownerReference with
  // blockOwnerDeletion, which the API server allows only to who may update the owner's finalizers.
  { apiGroup: 'agentplatform.io', resource: 'agentdeployments/finalizers', verbs: ['update'] },
  { apiGroup: 'agentplatform.io', resource: 'platformconnections', verbs: ['list', 'watch', 'patch'] },
  { apiGroup: 'agentplatform.io', resource: 'platformconnections/status', verbs: ['patch'] },
  { apiGroup: 'agentplatform.io', resource: 'tracedeletions', verbs: ['list', 'watch'] },
  { apiGroup: 'agentplatform.io', resource: 'tracedeletions/status', verbs: ['patch'] },
  { apiGroup: 'agentplatform.io', resource: 'exampledeletions', verbs: ['list', 'watch'] },
  { apiGroup: 'agentplatform.io', resource: 'exampledeletions/status', verbs: ['patch'] },
  { apiGroup: '', resource: 'secrets', verbs: ['get', 'list', 'watch'] },
  // ConfigMaps: watched for names and resourceVersions only, like Secrets, so that a change of
  // one an AgentDeployment references (valueFrom.configMapKeyRef) rolls a new revision; values
  // read by name (get) for referenced ones. A TraceDeletion's traceIdsFrom ConfigMaps are read
  // by name too: twice when submitting (counted, then streamed) and twice per check; not cached.
  // spec.export: the operator creates a ConfigMap an AgentDeployment names (in its own
  // namespace), replaces it only when it is the controller owner, and deletes only such a one.
  { apiGroup: '', resource: 'configmaps', verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'] },
  { apiGroup: 'events.k8s.io', resource: 'events', verbs: ['create', 'patch'] },
];

/** Granted in the operator's own namespace when leader election is on: one Lease, read, created, renewed by update. */
export const LEADER_ELECTION_PERMISSIONS: readonly PermissionRule[] = [
  { apiGroup: 'coordination.k8s.io', resource: 'leases', verbs: ['get', 'create', 'update'] },
];

/**
 * Granted in the operator's own namespace, always: the ConfigMap that records which
 * namespace orphaned which deployment (read, created once, then updated under its
 * resourceVersion). Tenants hold no right there, so they cannot forge a record.
 */
export const ORPHAN_RECORD_PERMISSIONS: readonly PermissionRule[] = [
  { apiGroup: '', resource: 'configmaps', verbs: ['get', 'create', 'update'] },
];

/**
 * Cluster-wide, whatever namespaces are watched: ClusterPlatformConnections and Namespaces
 * (for a connection's namespaceSelector) are cluster-scoped. Connections are read through
 * informers, their finalizer and status written by merge patch.
 */
export const CONNECTION_CLUSTER_PERMISSIONS: readonly PermissionRule[] = [
  { apiGroup: 'agentplatform.io', resource: 'clusterplatformconnections', verbs: ['list', 'watch', 'patch'] },
  { apiGroup: 'agentplatform.io', resource: 'clusterplatformconnections/status', verbs: ['patch'] },
  { apiGroup: '', resource: 'namespaces', verbs: ['list', 'watch'] },
];

/**
 * In the operator's own namespace when the watched namespaces leave it out: the key Secrets
 * of ClusterPlatformConnections live there, read through an informer.
 */
export const CONNECTION_KEY_PERMISSIONS: readonly PermissionRule[] = [
  { apiGroup: '', resource: 'secrets', verbs: ['list', 'watch'] },
];
