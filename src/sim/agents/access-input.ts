// The body of PUT /_emulator/agent-access/<deployment id>, checked by hand so that every
// refusal names the field and the rule (and never repeats a key or a header value):
// `{owner_keys?: [key, ...] | null, shared_with_workspace?: boolean,
//   custom_auth?: {headers: {<name>: <value>}} | null}`.
import { keyFingerprint } from '../http/ids.js';
import type { AgentAccess } from './access.js';

/** The headers the platform itself reads on every call: custom authentication adds to them. */
const RESERVED_HEADERS = new Set([
  'x-api-key',
  'x-auth-scheme',
  'authorization',
  'content-type',
  'content-length',
  'host',
  'connection',
  'transfer-encoding',
]);
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const FIELDS = new Set(['owner_keys', 'shared_with_workspace', 'custom_auth']);

export class AccessInputError extends Error {}

const refuse = (field: string, rule: string): AccessInputError => new AccessInputError(`${field}: ${rule}`);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `ownsTenant(key)`: whether the key is a known key of the deployment's workspace (an owner
 * must be a member; a key of nobody or of another workspace is refused).
 */
export function parseAccessInput(body: unknown, ownsTenant: (key: string) => boolean): AgentAccess {
  const input = body ?? {};
  if (!isObject(input)) throw refuse('body', 'must be a JSON object');
  for (const field of Object.keys(input)) {
    if (!FIELDS.has(field)) throw refuse(field, `unknown field (known: ${[...FIELDS].join(', ')})`);
  }

  let ownerFingerprints: string[] | null = null;
  const owners = input['owner_keys'];
  if (owners != null) {
    if (!Array.isArray(owners) || owners.length === 0) throw refuse('owner_keys', 'must be a non-empty list of API keys, or null');
    ownerFingerprints = owners.map((key: unknown, index) => {
      if (typeof key !== 'string' || !ownsTenant(key)) {
        throw refuse(`owner_keys.${index}`, "must be an API key of the deployment's workspace");
      }
      return keyFingerprint(key);
    });
  }

  const shared = input['shared_with_workspace'] ?? false;
  if (typeof shared !== 'boolean') throw refuse('shared_with_workspace', 'must be a boolean');

  const customAuthHeaders = new Map<string, string>();
  const customAuth = input['custom_auth'];
  if (customAuth != null) {
    if (!isObject(customAuth) || !isObject(customAuth['headers']) || Object.keys(customAuth).length !== 1) {
      throw refuse('custom_auth', 'must be {"headers": {<header name>: <value>}}');
    }
    const headers = customAuth['headers'];
    if (Object.keys(headers).length === 0) throw refuse('custom_auth.headers', 'must name at least one header');
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase();
      if (!HEADER_NAME.test(name)) throw refuse('custom_auth.headers', `"${name}" is not a valid header name`);
      if (RESERVED_HEADERS.has(lower)) {
        throw refuse('custom_auth.headers', `"${name}" is the platform's own header; custom authentication adds headers to it`);
      }
      if (typeof value !== 'string' || value === '') {
        throw refuse(`custom_auth.headers.${lower}`, 'must be a non-empty string');
      }
      customAuthHeaders.set(lower, value);
    }
  }
  return { ownerFingerprints, sharedWithWorkspace: shared, customAuthHeaders };
}
