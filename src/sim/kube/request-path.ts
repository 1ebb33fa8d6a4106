// Parses an API path into what it addresses: a discovery document or a resource request
// (group, version, namespace, resource, name, subresource). An empty segment (`//`) matches
// nothing, as in the real server's route table; one trailing slash is tolerated.
import { badRequest } from './api-error.js';
export type ParsedPath =
  | { kind: 'version' }
  | { kind: 'legacyRoot' }
  | { kind: 'groupList' }
  | { kind: 'group'; group: string }
  | { kind: 'resourceList'; group: string; version: string }
  | {
      kind: 'resource';
      group: string;
      version: string;
      namespace?: string;
      resource: string;
      name?: string;
      subresource?: string;
    }
  | { kind: 'unknown' };

function resourcePart(group: string, version: string, rest: string[]): ParsedPath {
  if (rest.length === 0) return { kind: 'resourceList', group, version };
  // /namespaces/{ns}/{resource}/... addresses namespaced objects; /namespaces/{name}/status
  // and /namespaces/{name}/finalize are the namespace's own subresources.
  if (rest[0] === 'namespaces' && rest.length >= 3 && rest[2] !== 'status' && rest[2] !== 'finalize') {
    const [, namespace, resource, name, subresource, ...extra] = rest;
    if (extra.length > 0 || !resource) return { kind: 'unknown' };
    return { kind: 'resource', group, version, namespace, resource, name, subresource };
  }
  const [resource, name, subresource, ...extra] = rest;
  if (extra.length > 0 || !resource) return { kind: 'unknown' };
  return { kind: 'resource', group, version, resource, name, subresource };
}

/** A malformed percent escape is the client's error: 400, as the real server answers. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest(`invalid URL escape in the request path segment ${JSON.stringify(segment)}`);
  }
}

/**
 * The real server's check on an object name taken from the path (IsValidPathSegmentName):
 * `.`, `..` and names holding `/` or `%` would address another storage key. A 400 BadRequest.
 */
export function checkPathSegmentName(name: string): void {
  const problems: string[] = [];
  if (name === '.' || name === '..') problems.push(`may not be '${name}'`);
  for (const forbidden of ['/', '%']) if (name.includes(forbidden)) problems.push(`may not contain '${forbidden}'`);
  if (problems.length > 0) throw badRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${problems.join(';')}`);
}

export function parseApiPath(pathname: string): ParsedPath {
  const raw = pathname.split('/').slice(1);
  if (raw.length > 0 && raw[raw.length - 1] === '') raw.pop();
  if (raw.includes('')) return { kind: 'unknown' };
  const segments = raw.map(decodeSegment);
  const [root, first, second, ...rest] = segments;
  if (root === 'version' && segments.length === 1) return { kind: 'version' };
  if (root === 'api') {
    if (first === undefined) return { kind: 'legacyRoot' };
    return resourcePart('', first, second === undefined ? [] : [second, ...rest]);
  }
  if (root === 'apis') {
    if (first === undefined) return { kind: 'groupList' };
    if (second === undefined) return { kind: 'group', group: first };
    return resourcePart(first, second, rest);
  }
  return { kind: 'unknown' };
}
