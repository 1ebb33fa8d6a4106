// The API key goes with every control-plane request, so a plain http:// URL would send it
// in clear across the network. It is refused unless it points at this machine (the
// emulator, a local port-forward) or the user says --allow-insecure explicitly.
import { isLoopbackHost } from '../controlplane/client/loopback.js';

/** The problem with the URL's scheme, or undefined when it may be used. */
export function insecureUrlProblem(url: string, allowInsecure: boolean): string | undefined {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' || allowInsecure) return undefined;
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isLoopbackHost(host)) return undefined;
  return `plain http would send the API key unencrypted to ${host}: use https, or --allow-insecure (AGENT_OPERATOR_ALLOW_INSECURE=true) for a trusted network`;
}
