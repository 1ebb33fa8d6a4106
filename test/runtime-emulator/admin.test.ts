// The runtimes' admin API: call counts per deployment, route, status and key fingerprint
// (never the key), and faults injected into runtime calls only.
import { beforeAll, describe, expect, it } from 'vitest';
import { AgentRuntimeClient } from '../../src/agentruntime/client.js';
import { keyFingerprint } from '../../src/sim/controlplane/index.js';
import type { AgentCallCount } from '../../src/sim/agents/index.js';
import type { WireDeployment } from '../controlplane-emulator/helpers.js';
import {
  KEY,
  agentUrlOf,
  sdkClient,
  startRuntimeFixture,
  userInput,
  type RuntimeFixture,
} from './helpers.js';

interface Counts {
  total: number;
  calls: AgentCallCount[];
}

let fixture: RuntimeFixture;
let deployment: WireDeployment;

beforeAll(async () => {
  fixture = await startRuntimeFixture();
  deployment = await fixture.deploy();
});

describe('GET /_emulator/agent-calls', () => {
  it('counts each answered call and clears on DELETE', async () => {
    await fixture.emulator.call('DELETE', '/_emulator/agent-calls');
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

describe('POST /_emulator/agent-faults', () => {
  it('fails the next runtime calls of a route, then lets them through; control-plane calls are untouched', async () => {
    const client = new AgentRuntimeClient({ url: agentUrlOf(deployment), apiKey: KEY });
    const added = await fixture.emulator.call('POST', '/_emulator/agent-faults', {
      body: { method: 'POST', route: '/runs/wait', status: 503, count: 2 },
    });
    expect(added.status).toBe(201);
    expect((await fixture.emulator.call('GET', `/v2/deployments/${deployment.id}`)).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const failed = await client.wait({ input: userInput('warming') });
      expect(failed.ok || failed.error).toMatchObject({ kind: 'unavailable', status: 503 });
    }
    expect((await client.wait({ input: userInput('warm') })).ok).toBe(true);
    expect((await client.ping()).ok).toBe(true);
  });

  it('resets connections and rejects a malformed rule naming the field', async () => {
    const client = new AgentRuntimeClient({ url: agentUrlOf(deployment), apiKey: KEY });
    await fixture.emulator.call('POST', '/_emulator/agent-faults', { body: { route: '/ok', reset: true } });
    const reset = await client.ping();
    expect(reset.ok || reset.error).toMatchObject({ kind: 'unreachable' });
    expect((await fixture.emulator.call('DELETE', '/_emulator/agent-faults')).status).toBe(204);
    expect((await client.ping()).ok).toBe(true);

    const bad = await fixture.emulator.call<{ error: { issues: { path: string[] }[] } }>(
      'POST',
      '/_emulator/agent-faults',
      { body: { route: '/ok', status: 42 } },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues[0]?.path).toEqual(['status']);
  });
});
