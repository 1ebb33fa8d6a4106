// The operator's agent calls (smoke tests) take the egress the environment names, as the
// control-plane client does: through the proxy for the agent's URL, directly when NO_PROXY
// exempts it; and they send the key with the platform's scheme.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../controlplane-emulator/helpers.js';
import { startConnectProxy, type ConnectProxy } from '../controlplane-client/support/connect-proxy.js';
import { KEY, agentUrlOf, startRuntimeFixture, type RuntimeFixture } from '../runtime-emulator/helpers.js';
import { agentCallPort } from '../../src/reconcilers/agentdeployment/agent-call-port.js';

let fixture: RuntimeFixture;
let proxy: ConnectProxy;
let url: string;
const ping = { messages: [{ role: 'user', content: 'ping' }] };
const viaConnection = (to: string, tenantChosen = false) => ({
  url: to,
  credential: { kind: 'connection' as const, tenantChosen },
  input: ping,
  timeoutMs: 5_000,
});
const signal = () => new AbortController().signal;

beforeAll(async () => {
  const clock = new ManualClock();
  fixture = await startRuntimeFixture({ clock: clock.now, revisionPhaseMs: 10 });
  url = agentUrlOf(await fixture.deploy('registry.example/bot:1'));
  clock.advance(1_000);
  proxy = await startConnectProxy();
});
afterAll(async () => {
  await proxy.close();
});

describe('agentCallPort', () => {
  it('calls the agent through the proxy the environment names for its URL', async () => {
    const port = agentCallPort(() => KEY, { env: { HTTP_PROXY: proxy.url } });
    try {
      const answer = await port.runOnce('team-a/bot', viaConnection(url), signal());
      expect(answer.ok).toBe(true);
      expect(proxy.tunnels).toEqual([new URL(url).host]);
    } finally {
      await port.close();
    }
  });

  it('connects directly when NO_PROXY exempts the agent, and redacts the key', async () => {
    const before = proxy.tunnels.length;
    const port = agentCallPort(() => KEY, { env: { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' } });
    const answer = await port.runOnce('team-a/bot', viaConnection(url), signal());
    expect(answer.ok).toBe(true);
    expect(proxy.tunnels).toHaveLength(before);
    expect(port.redact('team-a/bot', `key ${KEY}`)).toBe('key [redacted]');
    await port.close();
  });

  it('refuses to send the key over plain http off this machine unless --allow-insecure', async () => {
    const remote = 'http://agents.example.com/agents/1';
    const port = agentCallPort(() => KEY, { env: {} });
    const answer = await port.runOnce('team-a/bot', viaConnection(remote), signal());
    expect(answer).toMatchObject({ ok: false, error: { kind: 'rejected' } });
    expect(answer.ok ? '' : answer.error.message).toContain('plain http would send the API key unencrypted');
    await port.close();
  });

  it("sends the tenant's own key (read from the object's namespace) and never the connection's; quotes lose both", async () => {
    const reads: string[] = [];
    const port = agentCallPort(() => 'connection-key-never-sent', {
      env: {},
      allowPrivateNetworks: true,
      readSecretKey: (namespace, name, key) => {
        reads.push(`${namespace}/${name}/${key}`);
        return Promise.resolve(name === 'own' ? KEY : undefined);
      },
    });
    const own = (name: string) => ({
      url,
      credential: { kind: 'own' as const, secretName: name, secretKey: 'api-key' },
      input: ping,
      timeoutMs: 5_000,
    });
    const answer = await port.runOnce('team-b/bot', own('own'), signal());
    // The runtime emulator accepts KEY only: the call succeeding shows which key it carried.
    expect(answer.ok).toBe(true);
    expect(reads).toEqual(['team-b/own/api-key']);
    expect(port.redact('team-b/bot', `echo ${Buffer.from(KEY).toString('hex')} ${KEY}`)).toBe(
      'echo [redacted] [redacted]',
    );
    // Released once quoted: the port holds no tenant key beyond the call.
    port.release('team-b/bot');
    expect(port.redact('team-b/bot', KEY)).toBe(KEY);
    const missing = await port.runOnce('team-b/bot', own('absent'), signal());
    expect(missing).toEqual({
      ok: false,
      error: {
        kind: 'rejected',
        message: 'spec.smokeTest.apiKeySecretRef: Secret "absent" has no key "api-key" (or it is empty)',
      },
    });
    await port.close();
  });

  it('refuses tenant-chosen loopback and private addresses without --allow-private-networks, and metadata addresses always', async () => {
    const closed = agentCallPort(() => KEY, { env: {} });
    const loopback = await closed.runOnce('team-b/bot', viaConnection(url, true), signal());
    expect(loopback).toMatchObject({ ok: false, error: { kind: 'rejected' } });
    expect(loopback.ok ? '' : loopback.error.message).toContain('127.0.0.1 is a loopback address');
    const byName = await closed.runOnce(
      'team-b/bot',
      viaConnection(url.replace('127.0.0.1', 'localhost'), true),
      signal(),
    );
    expect(byName.ok ? '' : byName.error.message).toContain('--allow-private-networks');
    // The same address chosen by the key's owner (the platform, an allow-listed host) is called.
    expect((await closed.runOnce('team-a/bot', viaConnection(url, false), signal())).ok).toBe(true);
    const open = agentCallPort(() => KEY, { env: {}, allowPrivateNetworks: true, allowInsecure: true });
    expect((await open.runOnce('team-b/bot', viaConnection(url, true), signal())).ok).toBe(true);
    for (const metadata of [
      'http://169.254.169.254/latest',
      'http://[fd00:ec2::254]/',
      'http://2852039166/',
    ]) {
      const refused = await open.runOnce('team-a/bot', viaConnection(metadata, false), signal());
      expect(refused.ok ? '' : refused.error.message, metadata).toMatch(/never allowed/);
    }
    await closed.close();
    await open.close();
  });
});
