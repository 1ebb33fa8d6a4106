// Who may do what with an agent, as the runtime document puts it: a token not tied to the
// agent's owner is answered 404; a workspace-shared agent lets a caller of its workspace who
// is not the owner read (the UI's operations, read-only) but not run it; an agent with custom
// authentication expects the user's own token in headers of its own. The control-plane API
// has no fields for any of this, so tests set it through the runtimes' admin API.
import { Client } from '@langchain/langgraph-sdk';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keyFingerprint, tenantIdForKey } from '../../src/sim/controlplane/index.js';
import type { WireDeployment } from '../controlplane-emulator/helpers.js';
import {
  KEY,
  OTHER_WORKSPACE_KEY,
  agentUrlOf,
  messagesOf,
  sdkClient,
  startRuntimeFixture,
  userInput,
  type RuntimeFixture,
} from './helpers.js';

/** A second member of KEY's workspace: same tenant, another personal token. */
const TEAMMATE_KEY = 'teammate-key';
const USER_TOKEN = 'user-token-value-42';

let fixture: RuntimeFixture;
let deployment: WireDeployment;
let url: string;

beforeAll(async () => {
  fixture = await startRuntimeFixture({
    apiKeys: [{ key: KEY }, { key: OTHER_WORKSPACE_KEY }, { key: TEAMMATE_KEY, tenantIds: [tenantIdForKey(KEY)] }],
  });
  deployment = await fixture.deploy();
  url = agentUrlOf(deployment);
});

beforeEach(async () => {
  await fixture.emulator.call('DELETE', `/_emulator/agent-access/${deployment.id}`);
});

const setAccess = (body: unknown, id = deployment.id) =>
  fixture.emulator.call<Record<string, unknown>>('PUT', `/_emulator/agent-access/${id}`, { body });

async function raw(
  path: string,
  key: string,
  extra: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}${path}`, {
    headers: { 'x-api-key': key, 'x-auth-scheme': 'platform-api-key', ...extra },
  });
  return { status: response.status, text: await response.text() };
}

function sdkWithHeaders(key: string, headers: Record<string, string>): Client {
  return new Client({
    apiUrl: url,
    apiKey: key,
    defaultHeaders: { 'x-auth-scheme': 'platform-api-key', ...headers },
    callerOptions: { maxRetries: 0 },
  });
}

describe('ownership', () => {
  it('by default every key of the workspace acts as the owner (the agent is the workspace\'s)', async () => {
    const values = await sdkClient(url, TEAMMATE_KEY).runs.wait(null, 'agent', { input: userInput('hi') });
    expect(messagesOf(values).at(-1)?.content).toContain('You said: hi');
  });

  it('an agent owned by one token answers any other token 404, as the spec says', async () => {
    expect((await setAccess({ owner_keys: [KEY] })).status).toBe(200);
    expect((await raw('/ok', TEAMMATE_KEY)).status).toBe(404);
    await expect(
      sdkClient(url, TEAMMATE_KEY).runs.wait(null, 'agent', { input: userInput('x') }),
    ).rejects.toMatchObject({ status: 404 });
    expect((await raw('/ok', OTHER_WORKSPACE_KEY)).status).toBe(404);
    const values = await sdkClient(url, KEY).runs.wait(null, 'agent', { input: userInput('owner') });
    expect(messagesOf(values).at(-1)?.content).toContain('You said: owner');
  });
});

describe('a workspace-shared agent', () => {
  it('lets a member who is not the owner read, not run; other workspaces still get 404', async () => {
    expect((await setAccess({ owner_keys: [KEY], shared_with_workspace: true })).status).toBe(200);
    const owner = sdkClient(url, KEY);
    const thread = await owner.threads.create();
    await owner.runs.wait(thread.thread_id, 'agent', { input: userInput('from the owner') });

    const reader = sdkClient(url, TEAMMATE_KEY);
    expect((await raw('/ok', TEAMMATE_KEY)).status).toBe(200);
    expect((await reader.assistants.get('agent')).graph_id).toBe('agent');
    expect(await reader.assistants.search({ graphId: 'agent' })).toHaveLength(1);
    expect((await reader.threads.get(thread.thread_id)).thread_id).toBe(thread.thread_id);
    const state = await reader.threads.getState(thread.thread_id);
    expect(JSON.stringify(state.values)).toContain('from the owner');
    expect((await reader.threads.search()).map((t) => t.thread_id)).toContain(thread.thread_id);
    expect(await reader.threads.getHistory(thread.thread_id)).not.toHaveLength(0);
    const [run] = await reader.runs.list(thread.thread_id);
    expect(run?.status).toBe('success');
    if (run === undefined) throw new Error('no run');
    expect((await reader.runs.get(thread.thread_id, run.run_id)).run_id).toBe(run.run_id);

    const readOnly = { status: 403 };
    await expect(reader.runs.wait(null, 'agent', { input: userInput('x') })).rejects.toMatchObject(readOnly);
    await expect(reader.runs.wait(thread.thread_id, 'agent', { input: userInput('x') })).rejects.toMatchObject(readOnly);
    await expect(reader.runs.create(thread.thread_id, 'agent', { input: userInput('x') })).rejects.toMatchObject(readOnly);
    await expect(reader.threads.create()).rejects.toMatchObject(readOnly);
    await expect(reader.threads.delete(thread.thread_id)).rejects.toMatchObject(readOnly);
    const streamed = await fetch(`${url}/runs/stream`, {
      method: 'POST',
      headers: { 'x-api-key': TEAMMATE_KEY, 'x-auth-scheme': 'platform-api-key', 'content-type': 'application/json' },
      body: JSON.stringify({ assistant_id: 'agent', input: userInput('x') }),
    });
    expect(streamed.status).toBe(403);
    expect(await streamed.text()).toMatch(/read-only/);
    // Nothing the reader tried ran: the thread holds the owner's one exchange.
    expect(messagesOf((await owner.threads.getState(thread.thread_id)).values)).toHaveLength(2);

    expect((await raw('/ok', OTHER_WORKSPACE_KEY)).status).toBe(404);
    const again = await owner.runs.wait(thread.thread_id, 'agent', { input: userInput('still mine') });
    expect(messagesOf(again).at(-1)?.content).toContain('still mine');
  });
});

describe('custom authentication', () => {
  it("expects the user's token in its own header on every route but /info, and never echoes it", async () => {
    expect((await setAccess({ custom_auth: { headers: { 'x-user-token': USER_TOKEN } } })).status).toBe(200);
    const missing = await raw('/ok', KEY);
    expect(missing.status).toBe(401);
    expect(missing.text).toContain('x-user-token');
    const wrong = await raw('/ok', KEY, { 'x-user-token': 'not-it' });
    expect(wrong.status).toBe(403);
    expect(wrong.text).toContain('x-user-token');
    expect(wrong.text).not.toContain('not-it');
    expect(wrong.text).not.toContain(USER_TOKEN);
    expect((await raw('/info', KEY)).status).toBe(200);
    await expect(
      sdkClient(url, KEY).runs.wait(null, 'agent', { input: userInput('x') }),
    ).rejects.toMatchObject({ status: 401 });

    const user = sdkWithHeaders(KEY, { 'x-user-token': USER_TOKEN });
    expect((await raw('/ok', KEY, { 'x-user-token': USER_TOKEN })).status).toBe(200);
    const values = await user.runs.wait(null, 'agent', { input: userInput('with my token') });
    expect(messagesOf(values).at(-1)?.content).toContain('You said: with my token');
    // The platform key is still required: custom headers add to it, they do not replace it.
    expect((await raw('/ok', 'sk-unknown', { 'x-user-token': USER_TOKEN })).status).toBe(403);
  });

  it('applies to a shared agent\'s readers too', async () => {
    await setAccess({
      owner_keys: [KEY],
      shared_with_workspace: true,
      custom_auth: { headers: { 'x-user-token': USER_TOKEN } },
    });
    expect((await raw('/ok', TEAMMATE_KEY)).status).toBe(401);
    expect((await raw('/ok', TEAMMATE_KEY, { 'x-user-token': USER_TOKEN })).status).toBe(200);
  });
});

describe('the access admin route', () => {
  it('answers the settings with key fingerprints and header names only', async () => {
    const set = await setAccess({
      owner_keys: [KEY],
      shared_with_workspace: true,
      custom_auth: { headers: { 'x-user-token': USER_TOKEN } },
    });
    const expected = {
      deployment_id: deployment.id,
      owner_key_fingerprints: [keyFingerprint(KEY)],
      shared_with_workspace: true,
      custom_auth_headers: ['x-user-token'],
    };
    expect(set.body).toEqual(expected);
    const read = await fixture.emulator.call('GET', `/_emulator/agent-access/${deployment.id}`);
    expect(read.body).toEqual(expected);
    expect(JSON.stringify(read.body)).not.toContain(USER_TOKEN);
    expect(JSON.stringify(read.body)).not.toContain(KEY);
    expect((await fixture.emulator.call('DELETE', `/_emulator/agent-access/${deployment.id}`)).status).toBe(204);
    expect((await fixture.emulator.call('GET', `/_emulator/agent-access/${deployment.id}`)).body).toEqual({
      deployment_id: deployment.id,
      owner_key_fingerprints: null,
      shared_with_workspace: false,
      custom_auth_headers: [],
    });
  });

  it.each([
    [{ owner_keys: ['sk-unknown'] }, 400, /owner_keys\.0/],
    [{ owner_keys: [OTHER_WORKSPACE_KEY] }, 400, /owner_keys\.0/],
    [{ owner_keys: [] }, 400, /owner_keys/],
    [{ shared: true }, 400, /shared/],
    [{ custom_auth: { headers: { 'x-api-key': 'v' } } }, 400, /custom_auth\.headers/],
    [{ custom_auth: { headers: { 'bad header': 'v' } } }, 400, /custom_auth\.headers/],
  ])('refuses %j with %i naming the field', async (body, status, says) => {
    const answer = await setAccess(body);
    expect(answer.status).toBe(status);
    expect(JSON.stringify(answer.body)).toMatch(says);
    expect(JSON.stringify(answer.body)).not.toContain('sk-unknown');
  });

  it('answers 404 for a deployment that does not exist', async () => {
    expect((await setAccess({}, '00000000-0000-4000-8000-00000000dead')).status).toBe(404);
  });

  it('is behind the admin guard', async () => {
    const answer = await fixture.emulator.call('GET', `/_emulator/agent-access/${deployment.id}`, { adminToken: null });
    expect(answer.status).toBe(401);
  });
});
