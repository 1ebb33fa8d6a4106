// The reconciler's AgentCallPort on the runtime client (the official SDK): stateless runs
// to a deployed agent with the operator's key. Today every object uses the default
// connection's key (the operator's --api-key-file / AGENT_OPERATOR_API_KEY); a per-object
// connection will choose the key here, from `objectKey`, without the reconciler changing.
// Calls go through the proxy the environment names for the agent's URL (HTTPS_PROXY,
// HTTP_PROXY, NO_PROXY, read as the control-plane client reads them), like every other
// egress of the operator.
import { ProxyAgent, fetch as undiciFetch } from 'undici';
import { AgentRuntimeClient } from '../agentruntime/client.js';
import { redact } from '../agentruntime/errors.js';
import { proxyFor, type ProxyEnvironment } from '../controlplane/client/proxy-env.js';
import type { AgentCallPort } from '../reconcilers/agentdeployment/ports.js';
import { insecureUrlProblem } from './insecure-url.js';

export interface AgentCallPortHandle extends AgentCallPort {
  /** Closes the proxy connections kept for agent calls. */
  close(): Promise<void>;
}

export interface AgentCallPortOptions {
  /** Proxy variables (default: the process environment). */
  env?: ProxyEnvironment;
  /** Send the key over plain http off this machine (--allow-insecure). */
  allowInsecure?: boolean;
}

export function agentCallPort(
  apiKeyFor: (objectKey: string) => string,
  options: AgentCallPortOptions = {},
): AgentCallPortHandle {
  const env = options.env ?? process.env;
  const proxies = new Map<string, ProxyAgent>();
  const fetchThroughProxy = (url: string): typeof fetch | undefined => {
    const proxy = proxyFor(new URL(url), env);
    if (proxy === undefined) return undefined;
    let dispatcher = proxies.get(proxy);
    if (!dispatcher) {
      dispatcher = new ProxyAgent(proxy);
      proxies.set(proxy, dispatcher);
    }
    const agent = dispatcher;
    // undici's fetch is the one Node ships; its types differ from the DOM's only nominally.
    return ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) =>
      undiciFetch(input, { ...init, dispatcher: agent })) as unknown as typeof fetch;
  };
  return {
    runOnce(objectKey, url, input, timeoutMs, signal) {
      // The key goes with the call: never in clear across the network unless the user said so.
      const insecure = insecureUrlProblem(url, options.allowInsecure === true);
      if (insecure !== undefined) {
        return Promise.resolve({ ok: false, error: { kind: 'rejected', message: `${url}: ${insecure}` } });
      }
      const proxied = fetchThroughProxy(url);
      const client = new AgentRuntimeClient({
        url,
        apiKey: apiKeyFor(objectKey),
        timeoutMs,
        ...(proxied ? { fetch: proxied } : {}),
      });
      return client.wait({ input, signal });
    },
    redact(objectKey, text) {
      return redact(text, apiKeyFor(objectKey));
    },
    async close() {
      await Promise.all([...proxies.values()].map((agent) => agent.close()));
      proxies.clear();
    },
  };
}
