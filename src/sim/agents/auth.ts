// The runtime's authentication, as the spec states it: the key in X-Api-Key with
// X-Auth-Scheme: platform-api-key. No key or no scheme: 401; a key the platform does not
// know: 403; a valid key of another workspace, or of this workspace but not the owner's when
// the agent is not shared: 404, as if the agent did not exist. A member of the workspace who
// is not the owner of a workspace-shared agent is a reader. An agent with custom
// authentication then needs its own headers too: missing 401, wrong 403 (naming the header).
import type { IncomingHttpHeaders } from 'node:http';
import { accessLevelOf, customAuthProblem, type AccessLevel, type AgentAccessRegistry } from './access.js';
import type { AgentDirectory, HostedDeployment } from './directory.js';
import { RuntimeHttpError } from './runtime-error.js';

export const AUTH_SCHEME = 'platform-api-key';

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export interface Authorized {
  deployment: HostedDeployment;
  level: AccessLevel;
}

/** Never echoes the key or a custom header's value: answers name the header and the rule only. */
export function authorizedDeployment(
  directory: AgentDirectory,
  access: AgentAccessRegistry,
  deploymentId: string,
  headers: IncomingHttpHeaders,
): Authorized {
  const key = header(headers, 'x-api-key');
  if (key === undefined) throw new RuntimeHttpError(401, 'Missing authentication: send X-Api-Key');
  if (header(headers, 'x-auth-scheme')?.toLowerCase() !== AUTH_SCHEME) {
    throw new RuntimeHttpError(401, `X-Auth-Scheme must be "${AUTH_SCHEME}" when X-Api-Key is sent`);
  }
  const tenants = directory.tenantsOfKey(key);
  if (tenants === undefined) throw new RuntimeHttpError(403, 'Invalid API key');
  const deployment = directory.deployment(deploymentId);
  if (!deployment || !tenants.includes(deployment.tenantId)) throw new RuntimeHttpError(404, 'Not Found');
  const settings = access.get(deployment.id);
  const level = accessLevelOf(settings, key);
  if (level === undefined) throw new RuntimeHttpError(404, 'Not Found');
  const problem = customAuthProblem(settings, (name) => header(headers, name));
  if (problem?.problem === 'missing') {
    throw new RuntimeHttpError(401, `Missing custom authentication: this agent expects the ${problem.header} header`);
  }
  if (problem?.problem === 'wrong') {
    throw new RuntimeHttpError(403, `Custom authentication refused the ${problem.header} header`);
  }
  return { deployment, level };
}
