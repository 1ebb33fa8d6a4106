// The reconciler's AgentCallPort on the runtime client (the official SDK): stateless runs to
// a deployed agent with the key `decide` chose, the object's connection's or the tenant's own
// (spec.smokeTest.apiKeySecretRef, read from the object's namespace only).
//
// Every call goes through a dispatcher whose DNS lookup applies the address policy: a
// tenant-chosen address (the tenant's own key, or a PlatformConnection's endpoints) may reach
// loopback and private networks only with --allow-private-networks; link-local and cloud
// metadata addresses are never reached, whoever chose the URL. Calls go through the proxy the
// environment names for the agent's URL (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, read as the
// control-plane client reads them), like every other egress of the operator; the proxy then
// resolves names, so only IP literals are checked here for proxied calls.
import { Agent, ProxyAgent, fetch as undiciFetch, type Dispatcher } from 'undici';
import { AgentRuntimeClient } from '../../agentruntime/client.js';
import { redact, type AgentCallResult } from '../../agentruntime/errors.js';
import type { WaitOutcome } from '../../agentruntime/client.js';
import { proxyFor, type ProxyEnvironment } from '../../controlplane/client/proxy-env.js';
import type { AddressPolicy } from '../../egress/address-policy.js';
import { guardedConnectOptions, urlAddressProblem } from '../../egress/guarded-lookup.js';
import type { AgentCall, AgentCallPort } from './ports.js';
import { insecureUrlProblem } from '../../egress/insecure-url.js';
import { smokeTestHeaderProblem } from '../../api/agentdeployment/index.js';

export interface AgentCallPortHandle extends AgentCallPort {
  release(objectKey: string): void;
  /** Closes the connections kept for agent calls. */
  close(): Promise<void>;
}

/** Reads one key of a Secret in `namespace`; undefined when the Secret or the key is missing. */
export type SecretKeyReader = (
  namespace: string,
  name: string,
  key: string,
  signal: AbortSignal,
) => Promise<string | undefined>;

export interface AgentCallPortOptions {
  /** Proxy variables (default: the process environment). */
  env?: ProxyEnvironment;
  /** Send the key over plain http off this machine (--allow-insecure). */
  allowInsecure?: boolean;
  /** --allow-private-networks: tenant-chosen addresses may be loopback or private. */
  allowPrivateNetworks?: boolean;
  /** For spec.smokeTest.apiKeySecretRef; without it such a call fails, saying so. */
  readSecretKey?: SecretKeyReader;
}

/** The policy for addresses a key's owner chose (the platform, an allow-listed host): only link-local and metadata refused. */
const OWNER_CHOSEN: AddressPolicy = { allowPrivateNetworks: true };

export function agentCallPort(
  connectionKeyFor: (objectKey: string) => string,
  options: AgentCallPortOptions = {},
): AgentCallPortHandle {
  const env = options.env ?? process.env;
  const tenantChosen: AddressPolicy = { allowPrivateNetworks: options.allowPrivateNetworks === true };
  const dispatchers = new Map<string, Dispatcher>();
  /**
   * The own key and custom header values of each object's call under way, so that its quoted
   * reply loses them too; dropped on release.
   */
  const ownSecrets = new Map<string, string[]>();
  const remember = (objectKey: string, value: string): void => {
    ownSecrets.set(objectKey, [...(ownSecrets.get(objectKey) ?? []), value]);
  };

  const dispatcherFor = (url: URL, policy: AddressPolicy): Dispatcher => {
    const proxy = proxyFor(url, env);
    const id = proxy === undefined ? `direct|${String(policy.allowPrivateNetworks)}` : `proxy|${proxy}`;
    let dispatcher = dispatchers.get(id);
    if (dispatcher === undefined) {
      dispatcher =
        proxy === undefined ? new Agent({ connect: guardedConnectOptions(policy) }) : new ProxyAgent(proxy);
      dispatchers.set(id, dispatcher);
    }
    return dispatcher;
  };
  const rejected = (message: string): Promise<AgentCallResult<WaitOutcome>> =>
    Promise.resolve({ ok: false, error: { kind: 'rejected', message } });

  const keyFor = async (
    objectKey: string,
    call: AgentCall,
    signal: AbortSignal,
  ): Promise<{ ok: true; key: string } | { ok: false; message: string }> => {
    if (call.credential.kind === 'connection') return { ok: true, key: connectionKeyFor(objectKey) };
    const { secretName, secretKey } = call.credential;
    const field = `spec.smokeTest.apiKeySecretRef: Secret "${secretName}"`;
    if (options.readSecretKey === undefined)
      return { ok: false, message: `${field}: the operator cannot read Secrets here` };
    const namespace = objectKey.slice(0, objectKey.indexOf('/'));
    const value = await options.readSecretKey(namespace, secretName, secretKey, signal);
    if (value === undefined || value.trim() === '') {
      return { ok: false, message: `${field} has no key "${secretKey}" (or it is empty)` };
    }
    remember(objectKey, value.trim());
    return { ok: true, key: value.trim() };
  };

  /** spec.smokeTest.headers' values, read from the object's own namespace only. */
  const headersFor = async (
    objectKey: string,
    call: AgentCall,
    signal: AbortSignal,
  ): Promise<{ ok: true; headers: Record<string, string> } | { ok: false; message: string }> => {
    const headers: Record<string, string> = {};
    for (const ref of call.headers ?? []) {
      const field = `spec.smokeTest.headers[${ref.name}]`;
      // The schema refuses these already; an object that slipped past it sends nothing.
      const problem = smokeTestHeaderProblem(ref.name, `${field}.name`);
      if (problem !== undefined) return { ok: false, message: problem };
      if (options.readSecretKey === undefined)
        return { ok: false, message: `${field}: the operator cannot read Secrets here` };
      const namespace = objectKey.slice(0, objectKey.indexOf('/'));
      const value = await options.readSecretKey(namespace, ref.secretName, ref.secretKey, signal);
      if (value === undefined || value.trim() === '') {
        return {
          ok: false,
          message: `${field}.valueFrom.secretKeyRef: Secret "${ref.secretName}" has no key "${ref.secretKey}" (or it is empty)`,
        };
      }
      remember(objectKey, value.trim());
      headers[ref.name] = value.trim();
    }
    return { ok: true, headers };
  };

  return {
    async runOnce(objectKey, call, signal) {
      // The key goes with the call: never in clear across the network unless the user said so.
      const insecure = insecureUrlProblem(call.url, options.allowInsecure === true);
      if (insecure !== undefined) return rejected(`${call.url}: ${insecure}`);
      const url = new URL(call.url);
      const chosenByTenant = call.credential.kind === 'own' || call.credential.tenantChosen;
      const policy = chosenByTenant ? tenantChosen : OWNER_CHOSEN;
      const literal = urlAddressProblem(url, policy);
      if (literal !== undefined) return rejected(`the agent URL's address is refused: ${literal}`);
      const key = await keyFor(objectKey, call, signal);
      if (!key.ok) return rejected(key.message);
      const headers = await headersFor(objectKey, call, signal);
      if (!headers.ok) return rejected(headers.message);
      const dispatcher = dispatcherFor(url, policy);
      // undici's fetch is the one Node ships; its types differ from the DOM's only nominally.
      const fetchThrough = ((
        input: Parameters<typeof undiciFetch>[0],
        init?: Parameters<typeof undiciFetch>[1],
      ) => undiciFetch(input, { ...init, dispatcher })) as unknown as typeof fetch;
      const client = new AgentRuntimeClient({
        url: call.url,
        apiKey: key.key,
        headers: headers.headers,
        timeoutMs: call.timeoutMs,
        fetch: fetchThrough,
      });
      return client.wait({ input: call.input, signal });
    },
    redact(objectKey, text) {
      return redact(text, connectionKeyFor(objectKey), ...(ownSecrets.get(objectKey) ?? []));
    },
    release(objectKey) {
      ownSecrets.delete(objectKey);
    },
    async close() {
      await Promise.all([...dispatchers.values()].map((dispatcher) => dispatcher.close()));
      dispatchers.clear();
      ownSecrets.clear();
    },
  };
}
