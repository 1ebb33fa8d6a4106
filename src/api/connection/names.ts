// The names under which the two connection resources are served. Like the AgentDeployment's,
// they are a contract with users (kubectl, RBAC, Helm), so they live in one place.
import { GROUP, VERSION } from '../agentdeployment/names.js';

export const CONNECTION_API_VERSION = `${GROUP}/${VERSION}`;

export interface ConnectionResourceNames {
  kind: 'PlatformConnection' | 'ClusterPlatformConnection';
  listKind: string;
  plural: string;
  singular: string;
  shortNames: readonly string[];
  scope: 'Namespaced' | 'Cluster';
}

export const PLATFORM_CONNECTION: ConnectionResourceNames = {
  kind: 'PlatformConnection',
  listKind: 'PlatformConnectionList',
  plural: 'platformconnections',
  singular: 'platformconnection',
  shortNames: ['pconn'],
  scope: 'Namespaced',
};

export const CLUSTER_PLATFORM_CONNECTION: ConnectionResourceNames = {
  kind: 'ClusterPlatformConnection',
  listKind: 'ClusterPlatformConnectionList',
  plural: 'clusterplatformconnections',
  singular: 'clusterplatformconnection',
  shortNames: ['cpconn'],
  scope: 'Cluster',
};

export const CONNECTION_KINDS = [PLATFORM_CONNECTION.kind, CLUSTER_PLATFORM_CONNECTION.kind] as const;
export type ConnectionKind = (typeof CONNECTION_KINDS)[number];

export const CONNECTION_CATEGORIES = ['agents'] as const;

/** Blocks deletion of a connection while AgentDeployments still use it. */
export const CONNECTION_FINALIZER = `${GROUP}/connection-in-use`;
