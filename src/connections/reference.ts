// How an object names its connection, and the typed refusals when it cannot have it. The
// reasons are the AgentDeployment's Stalled reasons, so that they say which problem it is.
import type { ConnectionKind } from '../api/connection/index.js';

export interface ConnectionRef {
  kind: ConnectionKind;
  name: string;
}

export const CONNECTION_REFUSALS = [
  'ConnectionNotFound',
  'ConnectionNotReady',
  'ConnectionNotAllowed',
] as const;
export type ConnectionRefusalReason = (typeof CONNECTION_REFUSALS)[number];

export interface ConnectionRefusal {
  ok: false;
  reason: ConnectionRefusalReason;
  /** Names the connection and what is wrong; never a credential. */
  message: string;
}

/** `PlatformConnection team-a/eu`, `ClusterPlatformConnection us`: how messages and labels name one. */
export function describeConnection(
  kind: ConnectionKind | 'Default',
  namespace: string | undefined,
  name: string,
): string {
  if (kind === 'Default') return 'the default connection';
  return namespace === undefined ? `${kind} ${name}` : `${kind} ${namespace}/${name}`;
}
