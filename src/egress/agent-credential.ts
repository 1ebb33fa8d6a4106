// Which key a call to a deployed agent may carry, decided before any byte is sent. The
// operator holds keys that act on a whole workspace; an agent URL may have been written by a
// tenant (an external_container deployment's spec.sourceConfig.customUrl), and sending the
// key there would hand it over. So the connection's key goes only where its owner allowed:
//
// 1. the connection's own API addresses (same scheme, host and port);
// 2. a URL the platform assigned: a repo_host deployment's custom_url is set by the control
//    plane and cannot be written by anyone else;
// 3. a host the connection's owner listed (spec.agentHosts, --agent-hosts).
//
// A tenant who wants its agent called anywhere else gives a key of its own
// (spec.smokeTest.apiKeySecretRef), which is then the only key sent. Otherwise the call is
// refused with a message that says how to allow it. Nothing here trusts the object's spec or
// status for where the URL came from: the URL and the source are the control plane's.
import { anyHostPatternMatches, displayHost, sameOrigin, type HostPattern } from './host-patterns.js';

/**
 * Where a connection's key may go when a deployed agent is called (the smoke test): the
 * connection's own API addresses, and the agent hosts its owner listed. The key never goes
 * to an address only a tenant chose.
 */
export interface AgentTrust {
  /** The control plane's and the platform API's base URLs. */
  platformUrls: readonly string[];
  /** spec.agentHosts, or --agent-hosts for the default connection. */
  agentHosts: readonly HostPattern[];
  /** A PlatformConnection's addresses were chosen by a tenant: connections to them obey the address policy. */
  tenantChosenEndpoints: boolean;
}

export type AgentCredentialChoice =
  /** The connection's key. `tenantChosen`: the address is a PlatformConnection's own, a tenant's choice. */
  | { kind: 'connection'; tenantChosen: boolean }
  /** The tenant's own key, from a Secret of the object's namespace. */
  | { kind: 'own'; secretName: string; secretKey: string }
  | { kind: 'refused'; message: string };

export interface AgentCredentialInput {
  url: string;
  /** The deployment's source, as the control plane reports it. */
  source: string;
  trust: AgentTrust;
  /** spec.smokeTest.apiKeySecretRef. */
  ownKey?: { name: string; key: string };
  /** How messages name the connection ("the default connection", "ClusterPlatformConnection us"). */
  connectionLabel: string;
}

export function chooseAgentCredential(input: AgentCredentialInput): AgentCredentialChoice {
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    return { kind: 'refused', message: `the agent URL ${JSON.stringify(input.url)} is not a URL` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { kind: 'refused', message: `the agent URL must be http or https, not ${url.protocol}` };
  }
  // `https://allowed.example@evil.example/` connects to evil.example: refuse it whatever key.
  if (url.username !== '' || url.password !== '') {
    return {
      kind: 'refused',
      message: `the agent URL carries user info before its host (${displayHost(url)}); the operator calls no such URL`,
    };
  }
  if (input.ownKey !== undefined) {
    return { kind: 'own', secretName: input.ownKey.name, secretKey: input.ownKey.key };
  }
  const platformOwn = input.trust.platformUrls.some((base) => {
    try {
      return sameOrigin(new URL(base), url);
    } catch {
      return false;
    }
  });
  if (platformOwn) return { kind: 'connection', tenantChosen: input.trust.tenantChosenEndpoints };
  if (input.source === 'repo_host') return { kind: 'connection', tenantChosen: false };
  if (anyHostPatternMatches(input.trust.agentHosts, url)) {
    return { kind: 'connection', tenantChosen: input.trust.tenantChosenEndpoints };
  }
  const where =
    input.connectionLabel === 'the default connection'
      ? "the operator's --agent-hosts (Helm value agentHosts)"
      : `spec.agentHosts of ${input.connectionLabel}`;
  return {
    kind: 'refused',
    message: `the agent URL's host ${displayHost(url)} was not assigned by the platform and is not in ${where}; the operator sends a shared key only where the key's owner allows. Ask them to add the host there, or set spec.smokeTest.apiKeySecretRef to a key of your own`,
  };
}
