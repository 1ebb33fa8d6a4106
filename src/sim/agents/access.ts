// Who may do what with one agent, as the runtime document states it: a token not tied to the
// agent's owner is answered 404; a workspace-shared agent lets a member of its workspace who
// is not the owner use it read-only; an agent with custom authentication expects the user's
// own token in headers of its own (their names are the agent's; the document shows none).
// The control-plane API has no fields for this, so the runtimes' admin API sets it per
// deployment. Keys are kept only as fingerprints; expected header values only in memory,
// and no answer ever carries one.
import { timingSafeEqual } from 'node:crypto';
import { keyFingerprint } from '../http/ids.js';

export interface AgentAccess {
  /** Fingerprints of the owner's tokens; null: every key of the workspace owns the agent. */
  ownerFingerprints: string[] | null;
  /** Whether members of the workspace who are not the owner may read it. */
  sharedWithWorkspace: boolean;
  /** Custom authentication: header name (lower case) -> the value the agent accepts. */
  customAuthHeaders: Map<string, string>;
}

export type AccessLevel = 'owner' | 'reader';

/** The default: the agent is its workspace's, and it has no custom authentication. */
export const WORKSPACE_OWNED: AgentAccess = {
  ownerFingerprints: null,
  sharedWithWorkspace: false,
  customAuthHeaders: new Map(),
};

/** The admin API's view: fingerprints and header names, never a key or a header value. */
export function accessToWire(deploymentId: string, access: AgentAccess): Record<string, unknown> {
  return {
    deployment_id: deploymentId,
    owner_key_fingerprints: access.ownerFingerprints === null ? null : [...access.ownerFingerprints],
    shared_with_workspace: access.sharedWithWorkspace,
    custom_auth_headers: [...access.customAuthHeaders.keys()],
  };
}

/**
 * The level a key of the agent's workspace has: the owner's, a reader's (shared agent), or
 * none (undefined: the caller must get the same 404 as for an agent that does not exist).
 */
export function accessLevelOf(access: AgentAccess, key: string): AccessLevel | undefined {
  if (access.ownerFingerprints === null || access.ownerFingerprints.includes(keyFingerprint(key))) return 'owner';
  return access.sharedWithWorkspace ? 'reader' : undefined;
}

/** The first custom header that is missing or wrong, and which; undefined when all match. */
export function customAuthProblem(
  access: AgentAccess,
  presented: (name: string) => string | undefined,
): { header: string; problem: 'missing' | 'wrong' } | undefined {
  for (const [name, expected] of access.customAuthHeaders) {
    const value = presented(name);
    if (value === undefined) return { header: name, problem: 'missing' };
    if (!sameSecret(value, expected)) return { header: name, problem: 'wrong' };
  }
  return undefined;
}

/** Compared in constant time, so the answer's timing does not tell how much of it matched. */
function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export class AgentAccessRegistry {
  private readonly byDeployment = new Map<string, AgentAccess>();

  get(deploymentId: string): AgentAccess {
    return this.byDeployment.get(deploymentId) ?? WORKSPACE_OWNED;
  }

  set(deploymentId: string, access: AgentAccess): void {
    this.byDeployment.set(deploymentId, access);
  }

  delete(deploymentId: string): void {
    this.byDeployment.delete(deploymentId);
  }
}
