// Names a resource type (and optionally a namespace) and builds its REST paths, so that one
// client can serve core kinds (`/api/v1/...`) and every API group (`/apis/<group>/<v>/...`).

export interface ResourceType {
  /** Empty string for the core group. */
  group: string;
  version: string;
  /** Lower-case plural, as in the URL: "secrets", "leases", "agentdeployments". */
  plural: string;
  /** Whether objects of this type live in namespaces (default true). */
  namespaced?: boolean;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const PATH_SEGMENT = /^[^/?#%]+$/;

function checkSegment(field: string, value: string, rule: RegExp, ruleText: string): string {
  if (!rule.test(value)) throw new Error(`${field} "${value}" is invalid: must be ${ruleText}`);
  return encodeURIComponent(value);
}

export function apiVersionOf(type: ResourceType): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

/** The collection path: `/apis/g/v/namespaces/ns/plural`, or cluster-wide without a namespace. */
export function collectionPath(type: ResourceType, namespace?: string): string {
  const base = type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  const plural = checkSegment('resource plural', type.plural, DNS_LABEL, 'a lower-case DNS label');
  if (namespace === undefined || namespace === '' || type.namespaced === false) return `${base}/${plural}`;
  const ns = checkSegment('namespace', namespace, DNS_LABEL, 'a lower-case DNS label');
  return `${base}/namespaces/${ns}/${plural}`;
}

/** One object's path, optionally a subresource such as "status". */
export function objectPath(
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  subresource?: string,
): string {
  const objectName = checkSegment('name', name, PATH_SEGMENT, 'non-empty without "/", "?", "#" or "%"');
  const path = `${collectionPath(type, namespace)}/${objectName}`;
  return subresource ? `${path}/${checkSegment('subresource', subresource, DNS_LABEL, 'a DNS label')}` : path;
}
