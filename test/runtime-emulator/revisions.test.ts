// The runtime answers only once a revision is DEPLOYED, and the reply names the revision
// that answers: after a PATCH rolls out a new image, replies name the new one, and the
// thread's history survives the rollout.
import { describe, expect, it } from 'vitest';
import { ManualClock, repoHostBody, type WireDeployment } from '../controlplane-emulator/helpers.js';
import {
  AUTH_HEADERS,
  agentUrlOf,
  messagesOf,
  sdkClient,
  startRuntimeFixture,
  userInput,
} from './helpers.js';

const PHASE_MS = 1000;
/** external_container passes CREATING, QUEUED, AWAITING_DEPLOY, DEPLOYING. */
const IMAGE_PATH_MS = 4 * PHASE_MS;

describe('revisions and the runtime', () => {
  it('answers 503 until the first revision is deployed, then serves it', async () => {
    const clock = new ManualClock();
    const fixture = await startRuntimeFixture({ clock: clock.now, revisionPhaseMs: PHASE_MS });
    const url = agentUrlOf(await fixture.deploy('registry.example/slow:1'));
    const early = await fetch(`${url}/ok`, { headers: AUTH_HEADERS });
    expect(early.status).toBe(503);
    expect(await early.text()).toMatch(/no deployed revision/);
    clock.advance(IMAGE_PATH_MS);
    expect((await fetch(`${url}/ok`, { headers: AUTH_HEADERS })).status).toBe(200);
  });

  it('names the new image once the PATCHed revision is deployed, keeping the thread', async () => {
    const clock = new ManualClock();
    const fixture = await startRuntimeFixture({ clock: clock.now, revisionPhaseMs: PHASE_MS });
    const deployment = await fixture.deploy('registry.example/bot:1.0.0');
    clock.advance(IMAGE_PATH_MS);
    const client = sdkClient(agentUrlOf(deployment));
    const thread = await client.threads.create();
    const before = messagesOf(await client.runs.wait(thread.thread_id, 'agent', { input: userInput('v?') }));
    expect(before[1]?.content).toContain('registry.example/bot:1.0.0');

    const patched = await fixture.emulator.call<WireDeployment>('PATCH', `/v2/deployments/${deployment.id}`, {
      body: { source_revision_config: { image_uri: 'registry.example/bot:1.1.0' } },
    });
    expect(patched.status).toBe(200);
    const during = messagesOf(await client.runs.wait(null, 'agent', { input: userInput('still old?') }));
    expect(during[1]?.content).toContain('registry.example/bot:1.0.0');

    clock.advance(IMAGE_PATH_MS);
    const after = messagesOf(
      await client.runs.wait(thread.thread_id, 'agent', { input: userInput('v now?') }),
    );
    expect(after).toHaveLength(4);
    expect(after[3]?.content).toContain('registry.example/bot:1.1.0');
    expect(after[3]?.content).toContain(patched.body.latest_revision_id ?? 'missing');
  });

  it('names the repo ref and commit of a repo_host revision', async () => {
    const fixture = await startRuntimeFixture();
    const { integrationId } = await fixture.emulator.defaults();
    const created = await fixture.emulator.call<WireDeployment>('POST', '/v2/deployments', {
      body: repoHostBody(integrationId, {
        source_revision_config: { repo_ref: 'release-7', graph_config_path: 'graph.json' },
      }),
    });
    const sha = created.body.source_revision_config.repo_commit_sha;
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    const reply = messagesOf(
      await sdkClient(agentUrlOf(created.body)).runs.wait(null, 'agent', { input: userInput('which?') }),
    );
    expect(reply[1]?.content).toContain(`release-7@${String(sha)}`);
  });
});
