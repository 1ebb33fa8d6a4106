// /runs/stream through the official SDK and on the raw wire: the metadata event first, then
// values/updates as stream_mode asks, multi-line `data:` frames, ids on thread streams
// only, graph errors as `event: error`, and events written as they are produced.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@langchain/langgraph-sdk';
import {
  AUTH_HEADERS,
  agentUrlOf,
  collect,
  messagesOf,
  sdkClient,
  startRuntimeFixture,
  userInput,
} from './helpers.js';

let client: Client;
let agentUrl: string;

beforeAll(async () => {
  const fixture = await startRuntimeFixture();
  agentUrl = agentUrlOf(await fixture.deploy('registry.example/streamer:3'));
  client = sdkClient(agentUrl);
});

async function rawStream(path: string, body: unknown): Promise<{ response: Response; text: string }> {
  const response = await fetch(`${agentUrl}${path}`, {
    method: 'POST',
    headers: { ...AUTH_HEADERS, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { response, text: await response.text() };
}

describe('stateless stream', () => {
  it('sends metadata with the run id first, then one updates event for the agent node', async () => {
    let created: { run_id: string } | undefined;
    const events = await collect(
      client.runs.stream(null, 'agent', {
        input: userInput('stream me'),
        streamMode: ['updates'],
        onRunCreated: (meta) => (created = meta),
      }),
    );
    expect(events.map((e) => e.event)).toEqual(['metadata', 'updates']);
    expect(events[0]?.data).toEqual({ run_id: created?.run_id, attempt: 1 });
    const update = events[1]?.data as { agent: { messages: { type: string; content: string }[] } };
    expect(update.agent.messages).toHaveLength(1);
    expect(update.agent.messages[0]?.type).toBe('ai');
    expect(update.agent.messages[0]?.content).toContain('stream me');
    expect(update.agent.messages[0]?.content).toContain('registry.example/streamer:3');
  });

  it('defaults to values: the state after the input, then after the reply', async () => {
    const events = await collect(client.runs.stream(null, 'agent', { input: userInput('v') }));
    expect(events.map((e) => e.event)).toEqual(['metadata', 'values', 'values']);
    expect(messagesOf(events[1]?.data).map((m) => m.type)).toEqual(['human']);
    expect(messagesOf(events[2]?.data).map((m) => m.type)).toEqual(['human', 'ai']);
  });

  it('writes pretty-printed payloads as several data: lines, without ids', async () => {
    const { response, text } = await rawStream('/runs/stream', {
      assistant_id: 'agent',
      input: userInput('frames'),
      stream_mode: ['updates'],
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('content-location')).toMatch(/^\/runs\/[0-9a-f-]{36}$/);
    const frames = text.split('\n\n').filter((frame) => frame !== '');
    expect(frames).toHaveLength(2);
    const [metadata, update] = frames.map((frame) => frame.split('\n'));
    expect(metadata?.[0]).toBe('event: metadata');
    expect(metadata?.slice(1).every((line) => line.startsWith('data: '))).toBe(true);
    expect(update?.[0]).toBe('event: updates');
    expect(update?.length).toBeGreaterThan(5);
    expect(text).not.toContain('\nid: ');
    const joined = (update ?? [])
      .slice(1)
      .map((line) => line.slice('data: '.length))
      .join('\n');
    expect(JSON.parse(joined)).toMatchObject({ agent: { messages: [{ type: 'ai' }] } });
  });

  it('sends a graph error as event: error with the class and message', async () => {
    const events = await collect(
      client.runs.stream(null, 'agent', { input: userInput('raise:kaput'), streamMode: ['updates'] }),
    );
    expect(events.map((e) => e.event)).toEqual(['metadata', 'error']);
    expect(events[1]?.data).toEqual({ error: 'Error', message: 'kaput' });
  });
});

describe('thread stream', () => {
  it('numbers events with id lines and sees the thread history', async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'agent', { input: userInput('first') });
    const { response, text } = await rawStream(`/threads/${thread.thread_id}/runs/stream`, {
      assistant_id: 'agent',
      input: userInput('second'),
      stream_mode: ['updates', 'values'],
    });
    expect(response.headers.get('content-location')).toMatch(
      new RegExp(`^/threads/${thread.thread_id}/runs/[0-9a-f-]{36}$`),
    );
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => m[1]);
    expect(ids).toEqual(['0', '1', '2', '3']);
    const names = [...text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
    expect(names).toEqual(['metadata', 'values', 'updates', 'values']);

    const events = await collect(
      client.runs.stream(thread.thread_id, 'agent', { input: userInput('third'), streamMode: 'values' }),
    );
    const last = events[events.length - 1];
    expect(messagesOf(last?.data).map((m) => m.content.slice(0, 6))).toEqual([
      'first',
      'You sa',
      'second',
      'You sa',
      'third',
      'You sa',
    ]);
    expect(last?.id).toBe(String(events.length - 1));
  });

  it('writes each event when produced: metadata arrives while the run is still busy', async () => {
    const thread = await client.threads.create();
    const stream = client.runs.stream(thread.thread_id, 'agent', {
      input: userInput('sleep:800'),
      streamMode: ['updates'],
    });
    const iterator = stream[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value?.event).toBe('metadata');
    expect((await client.threads.get(thread.thread_id)).status).toBe('busy');
    const rest: { event: string }[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
    expect(rest.map((e) => e.event)).toEqual(['updates']);
    expect((await client.threads.get(thread.thread_id)).status).toBe('idle');
  });
});
