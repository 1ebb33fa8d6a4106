// The runtime's authentication, as the spec states it: the key in X-Api-Key with
// X-Auth-Scheme: platform-api-key. No key or no scheme: 401; a key the platform does not
// know: 403; a valid key of another workspace: 404, as if the agent did not exist.
import type { IncomingHttpHeaders } from 'node:http';
import type { AgentDirectory, HostedDeployment } from './directory.js';
import { RuntimeHttpError } from './runtime-error.js';

export const AUTH_SCHEME = 'platform-api-key';

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Never echoes the key: answers name the header and the rule only. */
export function authorizedDeployment(
  directory: AgentDirectory,
  deploymentId: string,
  headers: IncomingHttpHeaders,
): HostedDeployment {
  const key = header(headers, 'x-api-key');
  if (key === undefined) throw new RuntimeHttpError(401, 'Missing authentication: send X-Api-Key');
  if (header(headers, 'x-auth-scheme')?.toLowerCase() !== AUTH_SCHEME) {
    throw new RuntimeHttpError(401, `X-Auth-Scheme must be "${AUTH_SCHEME}" when X-Api-Key is sent`);
  }
  const tenants = directory.tenantsOfKey(key);
  if (tenants === undefined) throw new RuntimeHttpError(403, 'Invalid API key');
  const deployment = directory.deployment(deploymentId);
  if (!deployment || !tenants.includes(deployment.tenantId)) throw new RuntimeHttpError(404, 'Not Found');
  return deployment;
}
