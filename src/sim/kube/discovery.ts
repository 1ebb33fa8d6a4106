// Discovery documents: /version, /api, /apis, /apis/<group>, the per-version resource lists,
// and the aggregated (apidiscovery.k8s.io/v2) form that kubectl 1.32 asks for first.
import type { ResourceRegistry } from './registry.js';
import { ALL_VERBS, STATUS_VERBS, apiVersionOf, type ResourceType } from './resource-type.js';

export const AGGREGATED_DISCOVERY_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

export function wantsAggregatedDiscovery(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((part) => {
    const params = part.split(';').map((p) => p.trim());
    return params.includes('g=apidiscovery.k8s.io') && params.includes('v=v2') && params.includes('as=APIGroupDiscoveryList');
  });
}

export function versionInfo(): Record<string, string> {
  return {
    major: '1',
    minor: '32',
    gitVersion: 'v1.32.0',
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2024-12-11T00:00:00Z',
    goVersion: 'go1.23.4',
    compiler: 'gc',
    platform: 'linux/amd64',
    emulator: 'agent-operator kube emulator',
  };
}

export function legacyApiVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(group: string, versions: string[]): Record<string, unknown> {
  const entries = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: entries, preferredVersion: entries[0] };
}

export function groupList(registry: ResourceRegistry): Record<string, unknown> {
  const groups = [...registry.groups()].filter(([group]) => group !== '').map(([group, versions]) => apiGroup(group, versions));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

export function groupDocument(registry: ResourceRegistry, group: string): Record<string, unknown> | undefined {
  const versions = registry.groups().get(group);
  if (!versions || group === '') return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group, versions) };
}

export function resourceList(registry: ResourceRegistry, group: string, version: string): Record<string, unknown> | undefined {
  const types = registry.inGroupVersion(group, version);
  if (types.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const type of types) {
    const entry: Record<string, unknown> = {
      name: type.plural,
      singularName: type.singular,
      namespaced: type.namespaced,
      kind: type.kind,
      verbs: ALL_VERBS,
    };
    if (type.shortNames.length > 0) entry['shortNames'] = type.shortNames;
    if (type.categories.length > 0) entry['categories'] = type.categories;
    resources.push(entry);
    if (type.statusSubresource) {
      resources.push({ name: `${type.plural}/status`, singularName: '', namespaced: type.namespaced, kind: type.kind, verbs: STATUS_VERBS });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf(group, version), resources };
}

function discoveryResource(type: ResourceType, version: string): Record<string, unknown> {
  const responseKind = { group: type.group, version, kind: type.kind };
  const entry: Record<string, unknown> = {
    resource: type.plural,
    responseKind,
    scope: type.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: type.singular,
    verbs: ALL_VERBS,
  };
  if (type.shortNames.length > 0) entry['shortNames'] = type.shortNames;
  if (type.categories.length > 0) entry['categories'] = type.categories;
  if (type.statusSubresource) entry['subresources'] = [{ subresource: 'status', responseKind, verbs: STATUS_VERBS }];
  return entry;
}

/** The aggregated document for /api (core only) or /apis (every other group). */
export function aggregatedDiscovery(registry: ResourceRegistry, core: boolean): Record<string, unknown> {
  const items = [...registry.groups()]
    .filter(([group]) => (group === '') === core)
    .map(([group, versions]) => ({
      metadata: { name: group, creationTimestamp: null },
      versions: versions.map((version) => ({
        version,
        resources: registry.inGroupVersion(group, version).map((type) => discoveryResource(type, version)),
        freshness: 'Current',
      })),
    }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items };
}
