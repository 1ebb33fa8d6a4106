// The official JS client (@langchain/langgraph-sdk) against the runtime emulator:
// assistants, threads with history, stateful and stateless /runs/wait, and graph errors.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@langchain/langgraph-sdk';
import {
  agentUrlOf,
  messagesOf,
  sdkClient,
  startRuntimeFixture,
  userInput,
  AUTH_HEADERS,
} from './helpers.js';

const ASSISTANT_UUID = 'fe096781-5601-53d2-b2f6-0d3403f7e9ca';
const IMAGE = 'registry.example/support-bot:2.1.0';

let client: Client;
let agentUrl: string;

beforeAll(async () => {
  const fixture = await startRuntimeFixture();
  agentUrl = agentUrlOf(await fixture.deploy(IMAGE));
  client = sdkClient(agentUrl);
});

describe('assistants', () => {
  it('serves the graph `agent` by graph id and by its uuid5 assistant id', async () => {
    const byGraph = await client.assistants.get('agent');
    const byId = await client.assistants.get(ASSISTANT_UUID);
    expect(byGraph).toEqual(byId);
    expect(byGraph).toMatchObject({
      assistant_id: ASSISTANT_UUID,
      graph_id: 'agent',
      name: 'agent',
      metadata: { created_by: 'system' },
    });
  });

  it('finds it by search with the pagination header, and 404s an unknown assistant', async () => {
    const found = await client.assistants.search({ graphId: 'agent' });
    expect(found.map((a) => a.assistant_id)).toEqual([ASSISTANT_UUID]);
    expect(await client.assistants.search({ graphId: 'other' })).toEqual([]);
    const raw = await fetch(`${agentUrl}/assistants/search`, {
      method: 'POST',
      headers: { ...AUTH_HEADERS, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(raw.headers.get('x-pagination-total')).toBe('1');
    expect(raw.headers.get('access-control-expose-headers')).toBe('content-location,x-pagination-total');
    await expect(client.assistants.get('nobody')).rejects.toMatchObject({
      status: 404,
      text: expect.stringContaining('No assistant found for "nobody"'),
    });
  });
});

describe('threads and stateful runs', () => {
  it('keeps the conversation across runs and names the revision that answers', async () => {
    const thread = await client.threads.create();
    expect(thread).toMatchObject({ status: 'idle', metadata: {}, config: {} });
    expect(thread.thread_id).toMatch(/^[0-9a-f-]{36}$/);

    const first = await client.runs.wait(thread.thread_id, 'agent', { input: userInput('hello') });
    const firstMessages = messagesOf(first);
    expect(firstMessages.map((m) => m.type)).toEqual(['human', 'ai']);
    expect(firstMessages[0]).toMatchObject({
      content: 'hello',
      additional_kwargs: {},
      response_metadata: {},
    });
    expect(firstMessages[1]?.content).toContain('hello');
    expect(firstMessages[1]?.content).toContain(IMAGE);
    expect(firstMessages[1]).toMatchObject({ tool_calls: [], invalid_tool_calls: [] });

    const second = await client.runs.wait(thread.thread_id, 'agent', { input: userInput('and again') });
    const secondMessages = messagesOf(second);
    expect(secondMessages.map((m) => m.content.slice(0, 9))).toEqual([
      'hello',
      firstMessages[1]?.content.slice(0, 9),
      'and again',
      expect.any(String),
    ]);
    expect(secondMessages[3]?.content).toContain('message 2 of this conversation');

    const state = await client.threads.getState(thread.thread_id);
    expect(state.values).toEqual(second);
    expect(state.next).toEqual([]);
    expect(state.checkpoint).toMatchObject({ thread_id: thread.thread_id, checkpoint_ns: '' });

    const history = await client.threads.getHistory(thread.thread_id);
    expect(history.length).toBe(4);
    expect(messagesOf(history[0]?.values)).toHaveLength(4);
    expect(messagesOf(history[3]?.values)).toHaveLength(1);
    expect(history[0]?.parent_checkpoint?.checkpoint_id).toBe(history[1]?.checkpoint.checkpoint_id);

    const after = await client.threads.get(thread.thread_id);
    expect(after.status).toBe('idle');
    expect(after.metadata).toMatchObject({ graph_id: 'agent', assistant_id: ASSISTANT_UUID });
    expect(after.values).toEqual(second);
  });

  it('reports the run id in Content-Location and lists the thread run', async () => {
    const thread = await client.threads.create();
    let created: { run_id: string; thread_id?: string } | undefined;
    await client.runs.wait(thread.thread_id, 'agent', {
      input: userInput('hi'),
      onRunCreated: (meta) => (created = meta),
    });
    expect(created?.thread_id).toBe(thread.thread_id);
    const run = await client.runs.get(thread.thread_id, created?.run_id ?? '');
    expect(run).toMatchObject({
      status: 'success',
      thread_id: thread.thread_id,
      assistant_id: ASSISTANT_UUID,
    });
    expect((await client.runs.list(thread.thread_id)).map((r) => r.run_id)).toEqual([created?.run_id]);
  });

  it('answers 404 for an unknown thread, in the plain-text shape', async () => {
    const missing = '00000000-0000-4000-8000-000000000001';
    await expect(client.runs.wait(missing, 'agent', { input: userInput('x') })).rejects.toMatchObject({
      status: 404,
      text: `Thread with ID ${missing} not found`,
    });
    await expect(client.threads.get(missing)).rejects.toMatchObject({ status: 404 });
  });

  it('answers 400 ZodError for a thread id that is not a uuid and for a body without assistant_id', async () => {
    const notUuid = await fetch(`${agentUrl}/threads/not-a-uuid`, { headers: AUTH_HEADERS });
    expect(notUuid.status).toBe(400);
    expect(await notUuid.json()).toMatchObject({ success: false, error: { name: 'ZodError' } });
    const noAssistant = await fetch(`${agentUrl}/runs/wait`, {
      method: 'POST',
      headers: { ...AUTH_HEADERS, 'content-type': 'application/json' },
      body: JSON.stringify({ input: userInput('x') }),
    });
    expect(noAssistant.status).toBe(400);
    const body = (await noAssistant.json()) as { error: { issues: { path: string[] }[] } };
    expect(body.error.issues[0]?.path).toEqual(['assistant_id']);
  });
});

describe('stateless runs', () => {
  it('answers from the input alone and keeps no thread', async () => {
    const before = await client.threads.search();
    let created: { run_id: string; thread_id?: string } | undefined;
    const values = await client.runs.wait(null, 'agent', {
      input: userInput('one-off'),
      onRunCreated: (meta) => (created = meta),
    });
    const messages = messagesOf(values);
    expect(messages.map((m) => m.type)).toEqual(['human', 'ai']);
    expect(messages[1]?.content).toContain('one-off');
    expect(messages[1]?.content).toContain('message 1 of this conversation');
    expect(created?.thread_id).toBeUndefined();
    expect(created?.run_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await client.threads.search()).toEqual(before);
  });

  it('sends the final state as pretty-printed text/plain with the run location', async () => {
    const response = await fetch(`${agentUrl}/runs/wait`, {
      method: 'POST',
      headers: { ...AUTH_HEADERS, 'content-type': 'application/json' },
      body: JSON.stringify({ assistant_id: 'agent', input: userInput('raw') }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=UTF-8');
    expect(response.headers.get('content-location')).toMatch(/^\/runs\/[0-9a-f-]{36}$/);
    const text = await response.text();
    expect(text).toContain('\n  "messages": [');
    expect(messagesOf(JSON.parse(text))[1]?.content).toContain('raw');
  });

  it('sends a newline every second while a long run is in progress', async () => {
    const response = await fetch(`${agentUrl}/runs/wait`, {
      method: 'POST',
      headers: { ...AUTH_HEADERS, 'content-type': 'application/json' },
      body: JSON.stringify({ assistant_id: 'agent', input: userInput('sleep:1200') }),
    });
    const text = await response.text();
    expect(text.startsWith('\n{')).toBe(true);
    expect(messagesOf(JSON.parse(text))[1]?.content).toContain('sleep:1200');
  });
});

describe('graph errors', () => {
  it('raises `raise:<text>` to the SDK caller, and shows __error__ when asked not to raise', async () => {
    await expect(
      client.runs.wait(null, 'agent', { input: userInput('raise:the tool broke') }),
    ).rejects.toThrow('Error: the tool broke');
    const raw = await client.runs.wait(null, 'agent', { input: userInput('raise:again'), raiseError: false });
    expect(raw).toEqual({ __error__: { error: 'Error', message: 'again' } });
  });

  it('leaves the thread in status error with the input kept', async () => {
    const thread = await client.threads.create();
    await expect(
      client.runs.wait(thread.thread_id, 'agent', { input: userInput('raise:bad') }),
    ).rejects.toThrow('bad');
    const after = await client.threads.get(thread.thread_id);
    expect(after.status).toBe('error');
    expect(messagesOf(after.values).map((m) => m.content)).toEqual(['raise:bad']);
    const run = (await client.runs.list(thread.thread_id))[0];
    expect(run?.status).toBe('error');
  });
});

describe('clients that go away', () => {
  it('keeps serving after a waiting client disconnects, and the run still completes', async () => {
    const thread = await client.threads.create();
    const controller = new AbortController();
    const waiting = fetch(`${agentUrl}/threads/${thread.thread_id}/runs/wait`, {
      method: 'POST',
      headers: { ...AUTH_HEADERS, 'content-type': 'application/json' },
      body: JSON.stringify({ assistant_id: 'agent', input: userInput('sleep:1300 left early') }),
      signal: controller.signal,
    }).then((response) => response.text());
    while ((await client.threads.get(thread.thread_id)).status !== 'busy') await new Promise(setImmediate);
    controller.abort();
    await expect(waiting).rejects.toThrow();
    // The keep-alive ticks at 1 s, after the client left; the run ends at 1.3 s.
    while ((await client.threads.get(thread.thread_id)).status === 'busy') {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const state = await client.threads.getState(thread.thread_id);
    expect(messagesOf(state.values).map((m) => m.type)).toEqual(['human', 'ai']);
    expect(await client.assistants.get('agent')).toMatchObject({ graph_id: 'agent' });
  });
});

describe('background runs', () => {
  it('creates a run that goes on, then joins it for the final state', async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'agent', { input: userInput('sleep:200 later') });
    expect(run).toMatchObject({ thread_id: thread.thread_id, status: 'pending' });
    const values = await client.runs.join(thread.thread_id, run.run_id);
    expect(messagesOf(values)[1]?.content).toContain('sleep:200 later');
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe('success');
    expect(await client.runs.join(thread.thread_id, run.run_id)).toEqual(values);
  });
});

describe('malformed requests', () => {
  async function post(path: string, body: string, contentType = 'application/json'): Promise<Response> {
    return fetch(`${agentUrl}${path}`, {
      method: 'POST',
      headers: { ...AUTH_HEADERS, 'content-type': contentType },
      body,
    });
  }

  it('answers 400 for JSON that does not parse and 415 for a body that is not JSON', async () => {
    const broken = await post('/runs/wait', '{"assistant_id": ');
    expect(broken.status).toBe(400);
    expect(await broken.text()).toBe('Malformed JSON in request body');
    const plain = await post('/runs/wait', 'hello', 'text/plain');
    expect(plain.status).toBe(415);
  });

  it('names the field of a message without a role, and of an unknown stream mode', async () => {
    const noRole = await post(
      '/runs/wait',
      JSON.stringify({ assistant_id: 'agent', input: { messages: [{ content: 'x' }] } }),
    );
    expect(noRole.status).toBe(400);
    const body = (await noRole.json()) as { error: { issues: { path: (string | number)[] }[] } };
    expect(body.error.issues[0]?.path).toEqual(['input', 'messages', 0, 'role']);
    const badMode = await post(
      '/runs/stream',
      JSON.stringify({ assistant_id: 'agent', stream_mode: ['everything'] }),
    );
    expect(badMode.status).toBe(400);
    expect(JSON.stringify(await badMode.json())).toContain('"stream_mode"');
  });

  it('takes LangChain-style messages ({type, content parts}) as well as {role, content}', async () => {
    const values = await client.runs.wait(null, 'agent', {
      input: { messages: [{ type: 'human', content: [{ type: 'text', text: 'from parts' }] }] },
    });
    expect(messagesOf(values)[1]?.content).toContain('You said: from parts.');
  });
});
