// spec.agentDeploymentRef: which session a TraceDeletion deletes from when it names the
// AgentDeployment instead of a session id. The reference resolves only in the TraceDeletion's
// own namespace, to that object's status.tracingProject.id, and deletes with that object's
// connection (a connectionRef of the TraceDeletion must name the same one), which the namespace
// must be allowed to delete data with. Status is writable by anyone with agentdeployments/status,
// so the id is not trusted: before anything is sent, the platform must hold a session of that
// id in the connection's workspace whose name is the AgentDeployment's deployment name. And
// spec.name is the tenant's too: a name that another AgentDeployment (of any namespace) also
// claims is ambiguous, so that an object named after another team's deployment resolves nothing.
import type { ConnectionRef, TraceDeletionObject } from '../../api/deletion/index.js';
import { deploymentName } from '../../api/agentdeployment/resource.js';
import type { AgentDeploymentView } from '../agentdeployment/object.js';
import type { SessionAccess } from '../deletion/ports.js';

/** How a TraceDeletion reads AgentDeployments and the sessions of a connection. */
export interface ProjectReferencePorts {
  /** The AgentDeployment `name` of `namespace` from the cache; undefined when there is none. */
  agentDeployment(namespace: string, name: string): AgentDeploymentView | undefined;
  /** How many AgentDeployments, in any namespace, name this deployment (spec.name or metadata.name). */
  claimsOf(deploymentName: string): number;
  sessionsFor(object: TraceDeletionObject): SessionAccess;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type SessionTarget =
  /** `object`: the TraceDeletion as its platform calls see it (the connection they use). */
  | { kind: 'resolved'; sessionId: string; object: TraceDeletionObject }
  /** Nothing is sent; looked at again on the slow re-check (the reference may resolve later). */
  | { kind: 'blocked'; reason: string; message: string }
  /** Nothing is sent, ever: the spec (immutable) or the platform says this cannot be the project. */
  | { kind: 'refused'; reason: string; message: string }
  | { kind: 'error'; error: Error };

export async function sessionTarget(
  object: TraceDeletionObject,
  ports: ProjectReferencePorts | undefined,
  signal: AbortSignal,
): Promise<SessionTarget> {
  const ref = object.spec.agentDeploymentRef;
  if (ref === undefined) return { kind: 'resolved', sessionId: object.spec.sessionId ?? '', object };
  const field = 'spec.agentDeploymentRef.name';
  if (ports === undefined) {
    return {
      kind: 'refused',
      reason: 'ReferenceUnsupported',
      message: `${field}: this operator does not watch AgentDeployments`,
    };
  }
  const namespace = object.metadata.namespace ?? '';
  const target = ports.agentDeployment(namespace, ref.name);
  if (target === undefined) {
    return {
      kind: 'blocked',
      reason: 'AgentDeploymentNotFound',
      message: `${field}: no AgentDeployment ${ref.name} in namespace ${namespace}`,
    };
  }
  const expected = deploymentName({ metadata: target.metadata, spec: { name: target.spec.name } });
  if (ports.claimsOf(expected) > 1) {
    return {
      kind: 'refused',
      reason: 'TracingProjectAmbiguous',
      message: `${field}: AgentDeployment ${ref.name} names deployment ${expected}, which another AgentDeployment names too; name the session by spec.sessionId instead`,
    };
  }
  const project = target.status?.tracingProject;
  if (project === undefined) {
    return {
      kind: 'blocked',
      reason: 'TracingProjectUnknown',
      message: `${field}: AgentDeployment ${ref.name} has no status.tracingProject yet (its deployment is not created, or its project not found yet)`,
    };
  }
  const own = object.spec.connectionRef;
  const theirs = (target.spec as { connectionRef?: ConnectionRef }).connectionRef;
  if (own !== undefined && (own.name !== theirs?.name || own.kind !== theirs.kind)) {
    return {
      kind: 'refused',
      reason: 'ConnectionMismatch',
      message: `spec.connectionRef must name the connection of AgentDeployment ${ref.name} (${theirs === undefined ? 'the default connection' : theirs.name}), or be left out`,
    };
  }
  const effective: TraceDeletionObject = {
    ...object,
    spec: { ...object.spec, ...(theirs === undefined ? {} : { connectionRef: theirs }) },
  };
  const mismatch: SessionTarget = {
    kind: 'refused',
    reason: 'TracingProjectMismatch',
    message: `status.tracingProject of AgentDeployment ${ref.name} does not name its tracing project ${expected} in the connection's workspace; nothing is deleted`,
  };
  // A forged id that is not even a uuid is no project: refused, not retried as a failed call.
  if (!UUID.test(project.id)) return mismatch;
  const access = ports.sessionsFor(effective);
  if (!access.ok) return { kind: 'blocked', reason: access.reason, message: access.message };
  const session = await access.client.readSession(project.id, { signal, priority: 'bulk' });
  if (!session.ok)
    return {
      kind: 'error',
      error: new Error(`reading tracing project ${project.id}: ${session.error.message}`),
    };
  if (session.value === undefined || session.value.name !== expected) return mismatch;
  return { kind: 'resolved', sessionId: session.value.id, object: effective };
}
