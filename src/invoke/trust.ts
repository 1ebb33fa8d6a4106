// Whether `invoke` may send the user's key to the address an AgentDeployment's status names.
// The object is written by whoever has edit rights in its namespace (and status by whoever
// holds that subresource), so the address is a tenant's word: the key goes there only when
// the same rule the operator's smoke test follows says so (src/egress/agent-credential.ts):
// the control plane's own address, a URL the platform assigned (a repo_host deployment, as
// the control plane itself reports it, read with the user's key), or a host the user listed
// in --agent-hosts. --trust-agent-url says "send it anyway", explicitly.
//
// An object that names a connection is called with that connection's key (./connection.ts),
// and that key goes only where the connection's own trust allows: its control plane and
// platform API, a URL the platform assigned, its spec.agentHosts. Neither --agent-hosts nor
// --trust-agent-url widens it: the key is its owner's to share, not the caller's.
import { chooseAgentCredential } from '../egress/agent-credential.js';
import type { HostPattern } from '../egress/host-patterns.js';
import { REGION_BASE_URLS, createControlPlaneClient } from '../controlplane/client/index.js';
import { PLATFORM_API_URLS } from '../connections/endpoints.js';
import type { Region } from '../controlplane/budget/rate-table.js';
import type { ControlPlaneClient } from '../controlplane/client/index.js';
import type { ResolvedConnection } from '../connections/registry.js';

export interface TrustOptions {
  url: string;
  /** status.deploymentId: the deployment whose source the control plane is asked for. */
  deploymentId?: string;
  apiKey: string;
  controlPlaneUrl?: string;
  region: Region;
  agentHosts: readonly HostPattern[];
  trustAgentUrl: boolean;
  signal: AbortSignal;
}

/** Undefined when the key may go to `url`; otherwise why not and how to allow it. */
export async function untrustedAgentUrl(options: TrustOptions): Promise<string | undefined> {
  if (options.trustAgentUrl) return undefined;
  const controlPlaneUrl = options.controlPlaneUrl;
  const source = await sourceOf(options);
  const choice = chooseAgentCredential({
    url: options.url,
    source,
    trust: {
      platformUrls:
        controlPlaneUrl === undefined
          ? [REGION_BASE_URLS[options.region], PLATFORM_API_URLS[options.region]]
          : [controlPlaneUrl],
      agentHosts: options.agentHosts,
      tenantChosenEndpoints: false,
    },
    connectionLabel: 'your key',
  });
  if (choice.kind !== 'refused') return undefined;
  return `not sending your key to ${options.url}: the address comes from the object, and it is not the control plane's, not assigned by the platform, and not in --agent-hosts. If you trust it, pass --agent-hosts <host> (or AGENT_OPERATOR_AGENT_HOSTS), or --trust-agent-url`;
}

export interface ConnectionTrustOptions {
  url: string;
  deploymentId?: string;
  /** The object's connection, resolved as the operator resolves it. */
  connection: ResolvedConnection;
  /** That connection's control plane, asked whether it assigned the URL. */
  controlPlane: ControlPlaneClient;
  /** `agentdeployment <namespace>/<name>`. */
  objectLabel: string;
  signal: AbortSignal;
}

/** Undefined when the connection's key may go to `url`; otherwise the refusal, naming the object, the connection and the rule. */
export async function untrustedConnectionUrl(options: ConnectionTrustOptions): Promise<string | undefined> {
  const { connection } = options;
  const source =
    options.deploymentId === undefined
      ? ''
      : await repoHostSource(options.controlPlane, options.deploymentId, options.url, options.signal);
  const choice = chooseAgentCredential({
    url: options.url,
    source,
    trust: connection.agentTrust,
    connectionLabel: connection.label,
  });
  if (choice.kind !== 'refused') return undefined;
  return `not sending the key of ${connection.label} (the connection of ${options.objectLabel}) to ${options.url}: ${choice.message.replace(/\. Ask them.*$/, '')}. Ask the connection's owner to add the host to its spec.agentHosts; --agent-hosts and --trust-agent-url widen only your own key's reach`;
}

/** The deployment's source as the control plane reports it; '' when it cannot be read. */
async function sourceOf(options: TrustOptions): Promise<string> {
  if (options.deploymentId === undefined) return '';
  const client = createControlPlaneClient({
    ...(options.controlPlaneUrl === undefined ? {} : { baseUrl: options.controlPlaneUrl }),
    region: options.region,
    credentials: { apiKey: options.apiKey },
    retry: { maxAttempts: 1 },
  });
  try {
    return await repoHostSource(client, options.deploymentId, options.url, options.signal);
  } finally {
    await client.close();
  }
}

/** Only a URL the control plane itself reports for a repo_host deployment counts as assigned. */
async function repoHostSource(
  client: ControlPlaneClient,
  deploymentId: string,
  url: string,
  signal: AbortSignal,
): Promise<string> {
  const read = await client.getDeployment(deploymentId, { signal });
  return read.ok && read.value.source_config.custom_url === url ? read.value.source : '';
}
