import type http from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../../src/runtime/kube/errors.js';
import { watchLines } from '../../src/runtime/kube/watch-lines.js';

/** A readable stream standing in for a watch response (the reader uses only stream methods). */
function response(): PassThrough & http.IncomingMessage {
  return new PassThrough() as PassThrough & http.IncomingMessage;
}

const event = (i: number): string => `{"type":"MODIFIED","object":{"metadata":{"name":"o-${i}"}}}\n`;

async function readAll(events: AsyncIterable<unknown>): Promise<unknown[]> {
  const values: unknown[] = [];
  for await (const value of events) values.push(value);
  return values;
}

describe('watchLines (a watch response read as it arrives)', () => {
  it('hands over the events of a cleanly ended stream, a last line without a newline too', async () => {
    const stream = response();
    const events = watchLines(stream, undefined, false);
    stream.end(`${event(1)}\n${event(2).trim()}`);
    expect(await readAll(events)).toEqual([
      { type: 'MODIFIED', object: { metadata: { name: 'o-1' } } },
      { type: 'MODIFIED', object: { metadata: { name: 'o-2' } } },
    ]);
  });

  it('hands over the events parsed before a line that is not JSON, then fails naming the stream', async () => {
    const stream = response();
    const events = watchLines(stream, undefined, false);
    stream.write(`${event(1)}{"type":\n${event(2)}`);
    const first = await events.next();
    expect(first.value).toEqual({ type: 'MODIFIED', object: { metadata: { name: 'o-1' } } });
    const failure = await events.next().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(KubeApiError);
    expect((failure as KubeApiError).message).toMatch(/^watch stream broken: /);
    expect(stream.destroyed).toBe(true);
  });

  it('fails when the stream closes without its end (broken mid-way), not a clean end', async () => {
    const stream = response();
    const events = watchLines(stream, undefined, false);
    stream.write(event(1));
    stream.destroy();
    await expect(readAll(events)).rejects.toThrow(/watch stream broken/);
  });

  it('pauses the response past 1,024 events waiting, and resumes it once the reader took them', async () => {
    const stream = response();
    const events = watchLines(stream, undefined, false);
    stream.write(Array.from({ length: 1100 }, (_, i) => event(i)).join(''));
    await expect.poll(() => stream.isPaused()).toBe(true);
    for (let i = 0; i < 1100; i += 1) await events.next();
    expect(stream.isPaused()).toBe(false);
    stream.end();
    expect(await events.next()).toEqual({ value: undefined, done: true });
  });

  it('ends quietly when the signal aborts while the reader waits, and closes the response', async () => {
    const stream = response();
    const controller = new AbortController();
    const events = watchLines(stream, controller.signal, false);
    stream.write(event(1));
    const reading = readAll(events);
    setTimeout(() => controller.abort(), 20);
    expect(await reading).toHaveLength(1);
    expect(stream.destroyed).toBe(true);
  });

  it('closes the response when the reader stops early', async () => {
    const stream = response();
    const events = watchLines(stream, undefined, false);
    stream.write(event(1) + event(2));
    for await (const _ of events) break;
    expect(stream.destroyed).toBe(true);
  });

  it('drops metadata.managedFields while decoding when asked to', async () => {
    const stream = response();
    const events = watchLines(stream, undefined, true);
    stream.end('{"type":"ADDED","object":{"metadata":{"name":"a","managedFields":[{"manager":"m"}]}}}\n');
    expect(await readAll(events)).toEqual([{ type: 'ADDED', object: { metadata: { name: 'a' } } }]);
  });
});
