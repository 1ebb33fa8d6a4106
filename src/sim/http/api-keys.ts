// Who is calling: the API key (X-Api-Key, or Authorization: Bearer) and the tenant it
// acts for (X-Tenant-Id when the key can see several tenants). Unknown keys are 401
// before anything else is charged to them, including the rate limit.
import type { IncomingHttpHeaders } from 'node:http';
import { detailError } from './http-error.js';
import { deriveUuid, keyFingerprint } from './ids.js';

export interface ApiKeyGrant {
  key: string;
  /** The tenants the key may act for. Absent: one tenant whose uuid is derived from the key. */
  tenantIds?: string[];
}

export interface Caller {
  key: string;
  keyFingerprint: string;
  tenantId: string;
}

interface KeyEntry {
  fingerprint: string;
  tenantIds: string[];
}

export function tenantIdForKey(key: string): string {
  return deriveUuid('agent-operator-emulator', 'tenant', key);
}

/** The key a request presents, or undefined. X-Api-Key wins over a bearer token. */
export function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey !== '') return apiKey;
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match?.[1] !== undefined) return match[1];
  }
  return undefined;
}

export class KeyRegistry {
  private readonly keys = new Map<string, KeyEntry>();

  constructor(grants: readonly ApiKeyGrant[]) {
    for (const grant of grants) {
      const tenantIds =
        grant.tenantIds && grant.tenantIds.length > 0 ? [...grant.tenantIds] : [tenantIdForKey(grant.key)];
      this.keys.set(grant.key, { fingerprint: keyFingerprint(grant.key), tenantIds });
    }
  }

  /** Every tenant with the fingerprints of the keys that can act for it, in grant order. */
  tenants(): Map<string, string[]> {
    const result = new Map<string, string[]>();
    for (const entry of this.keys.values()) {
      for (const tenantId of entry.tenantIds) {
        const fingerprints = result.get(tenantId) ?? [];
        fingerprints.push(entry.fingerprint);
        result.set(tenantId, fingerprints);
      }
    }
    return result;
  }

  /** Throws 401 for a missing or unknown key; returns the key's entry otherwise. */
  authenticate(key: string | undefined): KeyEntry & { key: string } {
    if (key === undefined) throw detailError(401, 'Missing API key: send X-Api-Key or Authorization: Bearer');
    const entry = this.keys.get(key);
    if (!entry) throw detailError(401, 'Invalid API key');
    return { ...entry, key };
  }

  /**
   * The tenant a request acts for. A one-tenant key may omit X-Tenant-Id (400 never
   * applies to it); a key with several tenants must name one (400 when missing), and a
   * tenant the key cannot see is 403 whatever the key.
   */
  resolveTenant(entry: KeyEntry & { key: string }, headers: IncomingHttpHeaders): Caller {
    const header = headers['x-tenant-id'];
    const requested = typeof header === 'string' && header !== '' ? header.toLowerCase() : undefined;
    const caller = (tenantId: string): Caller => ({
      key: entry.key,
      keyFingerprint: entry.fingerprint,
      tenantId,
    });
    if (requested === undefined) {
      const only = entry.tenantIds.length === 1 ? entry.tenantIds[0] : undefined;
      if (only === undefined) {
        throw detailError(400, 'X-Tenant-Id header is required: this API key has access to several tenants');
      }
      return caller(only);
    }
    const match = entry.tenantIds.find((id) => id.toLowerCase() === requested);
    if (match === undefined)
      throw detailError(403, 'This API key has no access to the tenant in X-Tenant-Id');
    return caller(match);
  }
}
