// The guard every emulator server runs its requests through (src/sim/http/request-guard.ts):
// whatever a handler throws, rejects with, or does wrong after it answered, the client gets a
// 500 without detail (or, once the answer has started, a closed connection), the error goes
// to the emulator's log, and the server keeps serving.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { guardRequests, type RequestHandler } from '../../src/sim/http/request-guard.js';

interface Reported {
  error: unknown;
  method: string | undefined;
}

let server: Server | undefined;

afterEach(async () => {
  const running = server;
  server = undefined;
  if (running === undefined) return;
  await new Promise<void>((resolve) => {
    running.close(() => resolve());
    running.closeAllConnections();
  });
});

/** A server whose every request goes to `handler` through the guard; errors land in `reported`. */
async function serve(handler: RequestHandler): Promise<{ url: string; reported: Reported[] }> {
  const reported: Reported[] = [];
  const guarded = guardRequests(handler, {
    answer500: (res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: 'Internal emulator error' }));
    },
    report: (error, req) => reported.push({ error, method: req.method }),
  });
  const started = createServer(guarded);
  server = started;
  await new Promise<void>((resolve) => started.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(started.address() as AddressInfo).port}`, reported };
}

/** Resolves once `reported` holds `count` entries (the report can come after the response). */
async function reportsOf(reported: Reported[], count: number): Promise<Reported[]> {
  await expect.poll(() => reported.length).toBeGreaterThanOrEqual(count);
  return reported;
}

function sometimes(
  fail: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>,
): RequestHandler {
  return (req, res) => {
    if (req.url === '/fail') return fail(req, res);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  };
}

describe('request guard', () => {
  it('answers a synchronous throw with a 500 that names nothing of the error, and logs the error', async () => {
    const { url, reported } = await serve(
      sometimes(() => {
        throw new Error('secret-detail-7c1f');
      }),
    );
    const response = await fetch(`${url}/fail`);
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toBe('application/json');
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ detail: 'Internal emulator error' });
    expect(text).not.toContain('secret-detail');
    const [entry] = await reportsOf(reported, 1);
    expect((entry?.error as Error).message).toBe('secret-detail-7c1f');
    expect(entry?.method).toBe('GET');
    expect((await fetch(`${url}/ok`)).status).toBe(200);
  });

  it('answers a rejected promise with the same 500', async () => {
    const { url, reported } = await serve(
      sometimes(async () => {
        await Promise.resolve();
        throw new TypeError('async failure');
      }),
    );
    const response = await fetch(`${url}/fail`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ detail: 'Internal emulator error' });
    expect((await reportsOf(reported, 1))[0]?.error).toBeInstanceOf(TypeError);
    expect((await fetch(`${url}/ok`)).status).toBe(200);
  });

  it('ends a response whose headers went out before the error, without a second answer', async () => {
    const { url, reported } = await serve(
      sometimes(async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: metadata\n\n');
        await Promise.resolve();
        throw new Error('after the headers');
      }),
    );
    const response = await fetch(`${url}/fail`);
    expect(response.status).toBe(200);
    // The stream stops with an error rather than looking complete or hanging.
    await expect(response.text()).rejects.toThrow();
    expect(await reportsOf(reported, 1)).toHaveLength(1);
    expect((await fetch(`${url}/ok`)).status).toBe(200);
  });

  it('keeps the process up when a handler writes after it ended the response', async () => {
    const { url, reported } = await serve(
      sometimes((_req, res) => {
        res.end('done');
        // Without a listener this 'error' event (write after end) would end the process.
        res.write('late');
      }),
    );
    const response = await fetch(`${url}/fail`);
    expect(await response.text()).toBe('done');
    const [entry] = await reportsOf(reported, 1);
    expect((entry?.error as NodeJS.ErrnoException).code).toBe('ERR_STREAM_WRITE_AFTER_END');
    expect((await fetch(`${url}/ok`)).status).toBe(200);
  });

  it('still answers when the report itself fails', async () => {
    const guarded = guardRequests(
      () => {
        throw new Error('handler');
      },
      {
        answer500: (res) => {
          res.writeHead(500);
          res.end();
        },
        report: () => {
          throw new Error('logger down');
        },
      },
    );
    const started = createServer(guarded);
    server = started;
    await new Promise<void>((resolve) => started.listen(0, '127.0.0.1', resolve));
    const response = await fetch(`http://127.0.0.1:${(started.address() as AddressInfo).port}/`);
    expect(response.status).toBe(500);
  });
});
