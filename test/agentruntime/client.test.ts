// The operator's runtime client against the runtime emulator: results and failures as
// typed values, deadlines, abort, no retries, and no key in any error message.
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { AgentRuntimeClient, lastAiText } from '../../src/agentruntime/client.js';
import { isRetryable } from '../../src/agentruntime/errors.js';
import { ManualClock } from '../controlplane-emulator/helpers.js';
import {
  KEY,
  OTHER_WORKSPACE_KEY,
  agentUrlOf,
  startRuntimeFixture,
  userInput,
  type RuntimeFixture,
} from '../runtime-emulator/helpers.js';

let fixture: RuntimeFixture;
let url: string;

beforeAll(async () => {
  fixture = await startRuntimeFixture();
  url = agentUrlOf(await fixture.deploy('registry.example/client:9'));
});

function client(key = KEY, timeoutMs?: number): AgentRuntimeClient {
  return new AgentRuntimeClient({ url, apiKey: key, ...(timeoutMs ? { timeoutMs } : {}) });
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

describe('AgentRuntimeClient', () => {
  it('pings, runs stateless, and continues a thread', async () => {
    expect(await client().ping()).toEqual({ ok: true, value: undefined });
    const once = await client().wait({ input: userInput('hello') });
    if (!once.ok) throw new Error(once.error.message);
    expect(lastAiText(once.value.values)).toContain('hello');
    expect(lastAiText(once.value.values)).toContain('registry.example/client:9');
    expect(once.value.runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(once.value.threadId).toBeUndefined();

    const thread = await client().createThread();
    if (!thread.ok) throw new Error(thread.error.message);
    await client().wait({ input: userInput('one'), threadId: thread.value.threadId });
    const two = await client().wait({ input: userInput('two'), threadId: thread.value.threadId });
    if (!two.ok) throw new Error(two.error.message);
    expect(two.value.threadId).toBe(thread.value.threadId);
    expect(lastAiText(two.value.values)).toContain('message 2 of this conversation');
  });

  it('streams events in order, metadata first', async () => {
    const items = [];
    for await (const item of client().stream({ input: userInput('streamed') })) items.push(item);
    expect(items.map((i) => (i.kind === 'event' ? i.event : i.kind))).toEqual(['metadata', 'updates']);
  });

  it('returns a graph error as kind graph, from wait and from stream', async () => {
    const waited = await client().wait({ input: userInput('raise:no luck') });
    expect(waited).toEqual({ ok: false, error: { kind: 'graph', message: 'Error: no luck' } });
    const items = [];
    for await (const item of client().stream({ input: userInput('raise:no luck') })) items.push(item);
    expect(items[items.length - 1]).toEqual({
      kind: 'failed',
      error: { kind: 'graph', message: 'Error: no luck' },
    });
  });

  it('classifies refusals: unknown key 403, other workspace 404, unknown thread 404', async () => {
    const forbidden = await client('sk-wrong').wait({ input: userInput('x') });
    expect(forbidden.ok || forbidden.error).toMatchObject({ kind: 'forbidden', status: 403 });
    const other = await client(OTHER_WORKSPACE_KEY).ping();
    expect(other.ok || other.error).toMatchObject({ kind: 'not-found', status: 404 });
    const thread = await client().wait({
      input: userInput('x'),
      threadId: '00000000-0000-4000-8000-000000000009',
    });
    expect(thread.ok || thread.error).toMatchObject({
      kind: 'not-found',
      message: expect.stringContaining('Thread with ID'),
    });
  });

  it('gives up at the deadline without retrying, and tells timeout from abort', async () => {
    const started = Date.now();
    const slow = await client(KEY, 300).wait({ input: userInput('sleep:5000') });
    expect(slow.ok || slow.error).toMatchObject({ kind: 'timeout' });
    expect(Date.now() - started).toBeLessThan(4000);
    if (!slow.ok) expect(isRetryable(slow.error)).toBe(true);

    const controller = new AbortController();
    const items = [];
    for await (const item of client().stream({ input: userInput('sleep:5000'), signal: controller.signal })) {
      items.push(item);
      if (item.kind === 'event' && item.event === 'metadata') controller.abort();
    }
    expect(items[items.length - 1]).toMatchObject({ kind: 'failed', error: { kind: 'aborted' } });
  });

  it('reports an agent without a deployed revision as unavailable (retryable), and a dead port as unreachable', async () => {
    const clock = new ManualClock();
    const slowFixture = await startRuntimeFixture({ clock: clock.now, revisionPhaseMs: 1000 });
    const pending = new AgentRuntimeClient({ url: agentUrlOf(await slowFixture.deploy()), apiKey: KEY });
    const answer = await pending.ping();
    expect(answer.ok || answer.error).toMatchObject({ kind: 'unavailable', status: 503 });
    if (!answer.ok) expect(isRetryable(answer.error)).toBe(true);

    const dead = new AgentRuntimeClient({
      url: `http://127.0.0.1:${await closedPort()}/agents/x`,
      apiKey: KEY,
    });
    const refused = await dead.wait({ input: userInput('x') });
    expect(refused.ok || refused.error).toMatchObject({ kind: 'unreachable' });
  });

  it('never puts the key in an error message, in any encoding, even when the server echoes it', async () => {
    const key = 'sk-"secret"/key+1';
    const echoed = [
      `key ${key} json ${JSON.stringify(key)} url ${encodeURIComponent(key)}`,
      `b64 ${Buffer.from(key).toString('base64')} b64url ${Buffer.from(key).toString('base64url')}`,
      `hex ${Buffer.from(key).toString('hex')} HEX ${Buffer.from(key).toString('hex').toUpperCase()}`,
      `header ${Buffer.from(`x-api-key: ${key}`).toString('base64')}`,
    ].join(' ');
    const echoing = new AgentRuntimeClient({
      url,
      apiKey: key,
      fetch: () => Promise.resolve(new Response(echoed, { status: 500 })),
    });
    const results = [await echoing.wait({ input: userInput('x') }), await echoing.ping()];
    for (const result of results) {
      expect(result.ok).toBe(false);
      const text = JSON.stringify(result);
      for (const form of [
        key,
        JSON.stringify(key).slice(1, -1),
        encodeURIComponent(key),
        'secret',
        Buffer.from(key).toString('base64').slice(0, 12),
        Buffer.from(key).toString('hex').slice(0, 12),
        Buffer.from(key).toString('hex').slice(0, 12).toUpperCase(),
      ]) {
        expect(text).not.toContain(form);
      }
      expect(Buffer.from(text.split('header ')[1] ?? '', 'base64').toString('latin1')).not.toContain(
        'secret',
      );
      expect(text).toContain('[redacted]');
    }
  });

  it('refuses an empty key rather than letting the SDK pick one from the environment', () => {
    expect(() => new AgentRuntimeClient({ url, apiKey: '' })).toThrow(/apiKey must not be empty/);
  });

  it('follows no redirect, so the key never reaches the host a redirect names', async () => {
    const seen: string[] = [];
    const elsewhere = createHttpServer((request, response) => {
      seen.push(String(request.headers['x-api-key'] ?? ''));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const target = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    const redirecting = createHttpServer((request, response) => {
      response.writeHead(307, { location: `${target}${request.url ?? '/'}` }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    try {
      const from = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`;
      const client = new AgentRuntimeClient({ url: from, apiKey: 'sk-redirected-0001' });
      const results = [await client.wait({ input: userInput('x') }), await client.ping()];
      for (const result of results) expect(result.ok).toBe(false);
      expect(seen).toEqual([]);
    } finally {
      await new Promise((resolve) => redirecting.close(resolve));
      await new Promise((resolve) => elsewhere.close(resolve));
    }
  });
});
