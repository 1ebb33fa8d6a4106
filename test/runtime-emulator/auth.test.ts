// Runtime authentication: X-Api-Key with X-Auth-Scheme: platform-api-key. No key or no
// scheme is 401, an unknown key 403, a valid key of another workspace 404 (as if the agent
// did not exist); no answer carries the key.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  KEY,
  OTHER_WORKSPACE_KEY,
  agentUrlOf,
  sdkClient,
  startRuntimeFixture,
  userInput,
  type RuntimeFixture,
} from './helpers.js';

let fixture: RuntimeFixture;
let agentUrl: string;

beforeAll(async () => {
  fixture = await startRuntimeFixture();
  agentUrl = agentUrlOf(await fixture.deploy());
});

async function okWith(headers: Record<string, string>): Promise<{ status: number; text: string }> {
  const response = await fetch(`${agentUrl}/ok`, { headers });
  return { status: response.status, text: await response.text() };
}

describe('runtime authentication', () => {
  it('answers GET /ok with {"ok": true} to the owner key and the scheme header', async () => {
    const answer = await okWith({ 'x-api-key': KEY, 'x-auth-scheme': 'platform-api-key' });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ ok: true });
  });

  it.each<{ name: string; headers: Record<string, string>; status: number; says: RegExp }>([
    { name: 'no key', headers: {}, status: 401, says: /X-Api-Key/ },
    { name: 'no scheme header', headers: { 'x-api-key': KEY }, status: 401, says: /X-Auth-Scheme/ },
    {
      name: 'another scheme',
      headers: { 'x-api-key': KEY, 'x-auth-scheme': 'langsmith-api-key' },
      status: 401,
      says: /platform-api-key/,
    },
    {
      name: 'an unknown key',
      headers: { 'x-api-key': 'sk-not-a-real-key-123', 'x-auth-scheme': 'platform-api-key' },
      status: 403,
      says: /Invalid API key/,
    },
    {
      name: "another workspace's key",
      headers: { 'x-api-key': OTHER_WORKSPACE_KEY, 'x-auth-scheme': 'platform-api-key' },
      status: 404,
      says: /Not Found/,
    },
  ])('refuses $name with $status and never echoes the key', async ({ headers, status, says }) => {
    const answer = await okWith(headers);
    expect(answer.status).toBe(status);
    expect(answer.text).toMatch(says);
    for (const key of [KEY, OTHER_WORKSPACE_KEY, 'sk-not-a-real-key-123'])
      expect(answer.text).not.toContain(key);
  });

  it('refuses the SDK the same way on runs', async () => {
    await expect(
      sdkClient(agentUrl, null).runs.wait(null, 'agent', { input: userInput('x') }),
    ).rejects.toMatchObject({ status: 401 });
    await expect(
      sdkClient(agentUrl, OTHER_WORKSPACE_KEY).runs.wait(null, 'agent', { input: userInput('x') }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it("serves the other workspace's key on its own deployment", async () => {
    const theirs = agentUrlOf(await fixture.deploy('registry.example/theirs:1', OTHER_WORKSPACE_KEY));
    const values = await sdkClient(theirs, OTHER_WORKSPACE_KEY).runs.wait(null, 'agent', {
      input: userInput('mine'),
    });
    expect(JSON.stringify(values)).toContain('registry.example/theirs:1');
    await expect(sdkClient(theirs, KEY).threads.create()).rejects.toMatchObject({ status: 404 });
  });

  it('answers 404 for a deployment that does not exist or was deleted', async () => {
    const deployment = await fixture.deploy();
    const url = agentUrlOf(deployment);
    expect((await sdkClient(url).runs.wait(null, 'agent', { input: userInput('alive') })) !== undefined).toBe(
      true,
    );
    const deleted = await fixture.emulator.call('DELETE', `/v2/deployments/${deployment.id}`);
    expect(deleted.status).toBe(204);
    await expect(sdkClient(url).threads.create()).rejects.toMatchObject({ status: 404 });
    const unknown = agentUrl.replace(/[0-9a-f-]{36}$/, '00000000-0000-4000-8000-00000000dead');
    await expect(sdkClient(unknown).threads.create()).rejects.toMatchObject({ status: 404 });
  });
});
