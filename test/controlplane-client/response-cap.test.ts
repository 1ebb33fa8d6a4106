// A server (or a proxy) that answers without end must not make the client buffer it all:
// past the cap the socket is dropped and the call fails as Transient.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/controlplane/budget/clock.js';
import { MAX_RESPONSE_BYTES } from '../../src/controlplane/client/bounded-body.js';
import { HttpTransport } from '../../src/controlplane/client/http-transport.js';

let server: Server;
let origin: string;
let bytesSent = 0;

beforeAll(async () => {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url === '/small') {
      res.end('{"ok":true}');
      return;
    }
    // Endless: writes whenever the socket drains, until the client goes away.
    const pump = (): void => {
      while (!res.destroyed && res.write(chunk)) bytesSent += chunk.length;
    };
    res.on('drain', pump);
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('response size cap', () => {
  it('abandons an endless body past the cap, and still reads a normal one', async () => {
    const transport = new HttpTransport(origin, systemClock);
    const endless = await transport.send({
      method: 'GET',
      path: '/endless',
      headers: {},
      deadlineMs: 30_000,
    });
    expect(endless).toEqual({ type: 'failure', cause: 'other', code: 'RESPONSE_TOO_LARGE' });
    // Dropped soon after the cap, not read on.
    expect(bytesSent).toBeLessThan(MAX_RESPONSE_BYTES * 4);
    const small = await transport.send({ method: 'GET', path: '/small', headers: {}, deadlineMs: 30_000 });
    expect(small).toMatchObject({ type: 'response', status: 200, text: '{"ok":true}' });
    await transport.close();
  });
});
