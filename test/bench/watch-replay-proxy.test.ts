import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WatchReplayProxy } from '../../bench/steady/watch-replay-proxy.js';
import { linesOf } from '../../src/runtime/kube/json-lines.js';

const COLLECTION = '/apis/agentplatform.io/v1alpha1/namespaces/bench/agentdeployments';
const event = (name: string, version: number, touch: string): string =>
  `${JSON.stringify({
    type: 'MODIFIED',
    object: { metadata: { name, resourceVersion: String(version), annotations: { touch } } },
  })}\n`;

/** An upstream that answers a list with a fixed body and keeps each watch open to write into. */
async function upstream(): Promise<{ url: string; watches: http.ServerResponse[]; server: http.Server }> {
  const watches: http.ServerResponse[] = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://upstream');
    if (url.searchParams.get('watch') === '1') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.flushHeaders();
      watches.push(response);
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"kind":"List","items":[]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, watches, server };
}

/** A fetch body's chunks as Buffers (it yields Uint8Arrays; linesOf reads Buffers, as a watch's socket gives). */
async function* buffers(response: Response): AsyncGenerator<Buffer> {
  if (response.body === null) return;
  for await (const chunk of response.body) yield Buffer.from(chunk);
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An upstream, the proxy in front of it, and a watch opened through the proxy, read line by line. */
async function watchThroughProxy(): Promise<{
  upstreamWatch: http.ServerResponse;
  proxy: WatchReplayProxy;
  received: string[];
}> {
  const origin = await upstream();
  cleanups.push(async () => {
    origin.server.closeAllConnections();
    await new Promise((resolve) => origin.server.close(resolve));
  });
  const proxy = await WatchReplayProxy.start(origin.url, 'agentdeployments');
  cleanups.push(() => proxy.close());

  const list = await fetch(`${proxy.url}${COLLECTION}`);
  expect(await list.text()).toBe('{"kind":"List","items":[]}');

  const received: string[] = [];
  const watching = new AbortController();
  const response = await fetch(`${proxy.url}${COLLECTION}?watch=1`, { signal: watching.signal });
  const reading = (async () => {
    for await (const line of linesOf(buffers(response))) received.push(line);
  })().catch(() => undefined);
  cleanups.push(async () => {
    watching.abort();
    await reading;
  });
  await expect.poll(() => origin.watches.length).toBe(1);
  const upstreamWatch = origin.watches[0];
  if (upstreamWatch === undefined) throw new Error('no watch reached the upstream');
  return { upstreamWatch, proxy, received };
}

describe('the steady benchmark watch replay proxy', () => {
  it('forwards requests, records a watch and writes the recorded events into it again', async () => {
    const { upstreamWatch, proxy, received } = await watchThroughProxy();

    proxy.startRecording();
    upstreamWatch.write(event('a', 7, '1') + event('b', 8, '1'));
    await expect.poll(() => received.length).toBe(2);
    const recorded = proxy.stopRecording('"touch":"1"');
    expect(recorded).toEqual([event('a', 7, '1').trim(), event('b', 8, '1').trim()]);
    // Later upstream events are forwarded, not recorded; their version is the newest seen.
    upstreamWatch.write(event('c', 9, '0'));
    await expect.poll(() => received.length).toBe(3);

    const replayed = recorded.map((line) => Buffer.from(`${line.replace('"touch":"1"', '"touch":"x"')}\n`));
    await proxy.replay(replayed, 'AgentDeployment', 'agentplatform.io/v1alpha1');
    await expect.poll(() => received.length).toBe(6);
    expect(received.slice(3, 5)).toEqual([event('a', 7, 'x').trim(), event('b', 8, 'x').trim()]);
    expect(JSON.parse(received[5] ?? '')).toEqual({
      type: 'BOOKMARK',
      object: {
        kind: 'AgentDeployment',
        apiVersion: 'agentplatform.io/v1alpha1',
        metadata: { resourceVersion: '9' },
      },
    });
  });

  it('refuses a recording whose events do not carry the annotation it will rewrite', async () => {
    const { upstreamWatch, proxy, received } = await watchThroughProxy();
    proxy.startRecording();
    upstreamWatch.write(event('a', 7, '2'));
    await expect.poll(() => received.length).toBe(1);
    expect(() => proxy.stopRecording('"touch":"1"')).toThrow(/does not carry "touch":"1" exactly once/);
  });
});
