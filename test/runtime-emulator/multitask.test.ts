// Concurrent runs on one thread under each multitask strategy: reject answers 409 and the
// first run completes; enqueue runs them in order; interrupt cancels the first and keeps
// its input; rollback cancels the first and undoes it.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@langchain/langgraph-sdk';
import { agentUrlOf, messagesOf, sdkClient, startRuntimeFixture, userInput } from './helpers.js';

let client: Client;

beforeAll(async () => {
  const fixture = await startRuntimeFixture();
  client = sdkClient(agentUrlOf(await fixture.deploy()));
});

/** Starts a slow run and resolves once the thread is busy with it. */
async function busyThread(): Promise<{ threadId: string; first: Promise<unknown> }> {
  const { thread_id: threadId } = await client.threads.create();
  const first = client.runs.wait(threadId, 'agent', { input: userInput('sleep:600 first') });
  for (;;) {
    if ((await client.threads.get(threadId)).status === 'busy') return { threadId, first };
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function contents(values: unknown): string[] {
  return messagesOf(values).map((m) =>
    m.type === 'human' ? m.content : `ai:${/^You said: (.*?)\. Answered/.exec(m.content)?.[1] ?? m.content}`,
  );
}

describe('multitask strategies', () => {
  it('reject: 409 while a run is in flight; the first run still completes', async () => {
    const { threadId, first } = await busyThread();
    await expect(
      client.runs.wait(threadId, 'agent', { input: userInput('second'), multitaskStrategy: 'reject' }),
    ).rejects.toMatchObject({ status: 409, text: expect.stringContaining('already running') });
    expect(contents(await first)).toEqual(['sleep:600 first', 'ai:sleep:600 first']);
  });

  it('enqueue (the default): the second run waits and sees the first one', async () => {
    const { threadId, first } = await busyThread();
    const second = await client.runs.wait(threadId, 'agent', { input: userInput('second') });
    expect(contents(await first)).toEqual(['sleep:600 first', 'ai:sleep:600 first']);
    expect(contents(second)).toEqual(['sleep:600 first', 'ai:sleep:600 first', 'second', 'ai:second']);
    const runs = await client.runs.list(threadId);
    expect(runs.map((r) => r.status)).toEqual(['success', 'success']);
  });

  it('interrupt: the first run ends interrupted, its input stays in the thread', async () => {
    const { threadId, first } = await busyThread();
    const second = await client.runs.wait(threadId, 'agent', {
      input: userInput('second'),
      multitaskStrategy: 'interrupt',
    });
    expect(contents(second)).toEqual(['sleep:600 first', 'second', 'ai:second']);
    expect(contents(await first)).toEqual(['sleep:600 first']);
    const runs = await client.runs.list(threadId);
    expect(runs.map((r) => r.status)).toEqual(['success', 'interrupted']);
  });

  it('rollback: the first run is cancelled and erased from the thread', async () => {
    const { threadId, first } = await busyThread();
    const second = await client.runs.wait(threadId, 'agent', {
      input: userInput('second'),
      multitaskStrategy: 'rollback',
    });
    await first;
    expect(contents(second)).toEqual(['second', 'ai:second']);
    expect((await client.runs.list(threadId)).map((r) => r.status)).toEqual(['success']);
    expect(await client.threads.getHistory(threadId)).toHaveLength(2);
  });
});
