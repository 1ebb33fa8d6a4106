// The operator's agent calls (smoke tests) take the egress the environment names, as the
// control-plane client does: through the proxy for the agent's URL, directly when NO_PROXY
// exempts it; and they send the key with the platform's scheme.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../controlplane-emulator/helpers.js';
import { startConnectProxy, type ConnectProxy } from '../controlplane-client/support/connect-proxy.js';
import { KEY, agentUrlOf, startRuntimeFixture, type RuntimeFixture } from '../runtime-emulator/helpers.js';
import { agentCallPort } from '../../src/operator/agent-call-port.js';

let fixture: RuntimeFixture;
let proxy: ConnectProxy;
let url: string;
const ping = { messages: [{ role: 'user', content: 'ping' }] };

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
      const answer = await port.runOnce('team-a/bot', url, ping, 5_000, new AbortController().signal);
      expect(answer.ok).toBe(true);
      expect(proxy.tunnels).toEqual([new URL(url).host]);
    } finally {
      await port.close();
    }
  });

  it('connects directly when NO_PROXY exempts the agent, and redacts the key', async () => {
    const before = proxy.tunnels.length;
    const port = agentCallPort(() => KEY, { env: { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' } });
    const answer = await port.runOnce('team-a/bot', url, ping, 5_000, new AbortController().signal);
    expect(answer.ok).toBe(true);
    expect(proxy.tunnels).toHaveLength(before);
    expect(port.redact('team-a/bot', `key ${KEY}`)).toBe('key [redacted]');
    await port.close();
  });

  it('refuses to send the key over plain http off this machine unless --allow-insecure', async () => {
    const remote = 'http://agents.example.com/agents/1';
    const port = agentCallPort(() => KEY, { env: {} });
    const answer = await port.runOnce('team-a/bot', remote, ping, 5_000, new AbortController().signal);
    expect(answer).toMatchObject({ ok: false, error: { kind: 'rejected' } });
    expect(answer.ok ? '' : answer.error.message).toContain('plain http would send the API key unencrypted');
    await port.close();
  });
});
