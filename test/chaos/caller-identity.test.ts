// Two operator replicas must be told apart by the control plane's side, for the chaos
// suite's "no write without the lease": each puts its identity in the User-Agent, and the
// emulator reports every API call with it as it arrives.
import { afterEach, describe, expect, it } from 'vitest';
import { createControlPlaneClient } from '../../src/controlplane/client/index.js';
import { startControlPlaneEmulator, type ApiCall, type ControlPlaneEmulator } from '../../src/sim/controlplane/index.js';

const KEY = 'caller-identity-key';

describe('caller identity', () => {
  let emulator: ControlPlaneEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it('the emulator records each call with the User-Agent that carries the replica identity', async () => {
    const calls: ApiCall[] = [];
    emulator = await startControlPlaneEmulator({ apiKeys: [{ key: KEY }], onApiRequest: (call) => calls.push(call) });
    const before = Date.now();
    for (const identity of ['replica-a_101', undefined]) {
      const client = createControlPlaneClient({
        baseUrl: emulator.url,
        credentials: { apiKey: KEY },
        ...(identity === undefined ? {} : { userAgentIdentity: identity }),
      });
      const result = await client.listDeployments();
      expect(result.ok).toBe(true);
      await client.close();
    }
    expect(calls.map(({ method, route, userAgent }) => ({ method, route, userAgent }))).toEqual([
      { method: 'GET', route: '/v2/deployments', userAgent: 'agent-operator (replica-a_101)' },
      { method: 'GET', route: '/v2/deployments', userAgent: 'agent-operator' },
    ]);
    expect(calls.every((call) => call.atMs >= before && call.atMs <= Date.now())).toBe(true);
  });

  it('sends nothing while the guard says no (a replica without the lease), and everything once it says yes', async () => {
    const calls: ApiCall[] = [];
    emulator = await startControlPlaneEmulator({ apiKeys: [{ key: KEY }], onApiRequest: (call) => calls.push(call) });
    let leading = false;
    const client = createControlPlaneClient({
      baseUrl: emulator.url,
      credentials: { apiKey: KEY },
      mayCall: () => leading,
    });
    const refused = await client.deleteDeployment('00000000-0000-4000-8000-000000000000');
    expect(refused).toMatchObject({
      ok: false,
      error: { kind: 'Transient', unclear: false, message: expect.stringMatching(/not sent: this replica does not hold the lease/) },
    });
    expect((await client.listDeployments()).ok).toBe(false);
    leading = true;
    expect((await client.listDeployments()).ok).toBe(true);
    await client.deleteDeployment('00000000-0000-4000-8000-000000000000');
    await client.close();
    expect(calls.map((call) => call.method)).toEqual(['GET', 'DELETE']);
  });

  it('refuses an identity that would break the header, naming the option and the rule', () => {
    for (const identity of ['', 'has space', 'paren(', 'x'.repeat(129), 'tab\there']) {
      expect(() =>
        createControlPlaneClient({ baseUrl: 'http://127.0.0.1:1', credentials: { apiKey: KEY }, userAgentIdentity: identity }),
      ).toThrow(/userAgentIdentity must be 1-128 printable ASCII characters without spaces or parentheses/);
    }
  });
});
