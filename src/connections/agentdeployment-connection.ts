// What the AgentDeployment side needs of connections: the connection an object names (its
// spec.connectionRef, in its own namespace for a PlatformConnection), resolved through the
// registry; and the index value that finds the objects using a connection (for the
// connection's finalizer, and to wake those objects when the connection changes).
import { ConnectionRef as ConnectionRefSchema } from '../api/agentdeployment/spec.js';
import type { ConnectionKind } from '../api/connection/index.js';
import type { ConnectionRegistry, ConnectionResolution } from './registry.js';
import type { ConnectionRef } from './reference.js';

export interface ConnectionUser {
  metadata: { namespace?: string; name?: string; deletionTimestamp?: string };
  spec?: object;
}

/**
 * Parsed references by the frozen object they came from (a cached object's spec never changes;
 * a new spec is a new object). A reconcile reads the reference several times (its connection,
 * the tracing project's, the index), and parsing each time cost 1% of the operator's CPU.
 */
const parsedRefs = new WeakMap<object, ConnectionRef | null>();

/** spec.connectionRef when it is well-formed; anything else (an object that slipped past validation) reads as absent. */
export function connectionRefOf(object: ConnectionUser): ConnectionRef | undefined {
  const raw = (object.spec as { connectionRef?: unknown } | undefined)?.connectionRef;
  if (raw === undefined) return undefined;
  const frozen = typeof raw === 'object' && raw !== null && Object.isFrozen(raw);
  const known = frozen ? parsedRefs.get(raw) : undefined;
  if (known !== undefined) return known ?? undefined;
  const parsed = ConnectionRefSchema.safeParse(raw);
  const ref = parsed.success ? parsed.data : undefined;
  if (frozen) parsedRefs.set(raw, ref ?? null);
  return ref;
}

/** The connection an AgentDeployment deploys through, or a refusal whose reason is its Stalled reason. */
export function resolveObjectConnection(
  registry: ConnectionRegistry,
  object: ConnectionUser,
  options: { forDataDeletion?: boolean } = {},
): ConnectionResolution {
  return registry.resolve(connectionRefOf(object), object.metadata.namespace ?? '', {
    finishing: object.metadata.deletionTimestamp !== undefined,
    ...options,
  });
}

/** `PlatformConnection/<namespace>/<name>` or `ClusterPlatformConnection//<name>`. */
export function connectionIndexValue(
  kind: ConnectionKind,
  namespace: string | undefined,
  name: string,
): string {
  return kind === 'ClusterPlatformConnection' ? `${kind}//${name}` : `${kind}/${namespace ?? ''}/${name}`;
}

/** The index values of an AgentDeployment: the connection it names, none for the default. */
export function connectionIndexValues(object: ConnectionUser): string[] {
  const ref = connectionRefOf(object);
  if (ref === undefined) return [];
  return [connectionIndexValue(ref.kind, object.metadata.namespace, ref.name)];
}
