// The admin API counts the calls the agent runtimes answered, per deployment, route, status
// and key fingerprint (never the key), so a test can assert how a client used an agent.
import { describe, expect, it } from 'vitest';
import { keyFingerprint } from '../../src/sim/controlplane/index.js';
import { KEY, agentUrlOf, sdkClient, startRuntimeFixture, userInput } from './helpers.js';

interface Counts {
  total: number;
  calls: {
    deployment_id: string;
    method: string;
    route: string;
    status: number;
    key_fingerprint: string | null;
    count: number;
  }[];
}

describe('GET /_emulator/agent-calls', () => {
  it('counts each answered call and clears on DELETE', async () => {
    const fixture = await startRuntimeFixture();
    const deployment = await fixture.deploy();
    const client = sdkClient(agentUrlOf(deployment));
    await client.runs.wait(null, 'agent', { input: userInput('one') });
    await client.runs.wait(null, 'agent', { input: userInput('two') });
    await expect(sdkClient(agentUrlOf(deployment), 'sk-unknown').threads.create()).rejects.toMatchObject({
      status: 403,
    });

    const counts = await fixture.emulator.call<Counts>('GET', '/_emulator/agent-calls');
    expect(counts.body.total).toBe(3);
    expect(counts.body.calls).toEqual(
      expect.arrayContaining([
        {
          deployment_id: deployment.id,
          method: 'POST',
          route: '/runs/wait',
          status: 200,
          key_fingerprint: keyFingerprint(KEY),
          count: 2,
        },
        {
          deployment_id: deployment.id,
          method: 'POST',
          route: '/threads',
          status: 403,
          key_fingerprint: keyFingerprint('sk-unknown'),
          count: 1,
        },
      ]),
    );
    expect(JSON.stringify(counts.body)).not.toContain(KEY);

    expect((await fixture.emulator.call('DELETE', '/_emulator/agent-calls')).status).toBe(204);
    expect((await fixture.emulator.call<Counts>('GET', '/_emulator/agent-calls')).body).toEqual({
      total: 0,
      calls: [],
    });
  });
});
