// A control plane (or a TLS-inspecting proxy) with a certificate from a private CA: the client
// trusts it once NODE_EXTRA_CA_CERTS names the bundle, which is what the chart's caBundle
// value sets, directly and through a CONNECT proxy; without the bundle the TLS check fails.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../packaging/support/run.js';
import { startConnectProxy, type ConnectProxy } from './support/connect-proxy.js';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const CA_BUNDLE = join(FIXTURES, 'test-ca.pem');
const PROBE = join(import.meta.dirname, 'support', 'send-once.ts');

let server: Server;
let proxy: ConnectProxy;
let url: string;

beforeAll(async () => {
  server = createServer(
    {
      cert: readFileSync(join(FIXTURES, 'test-server.pem')),
      key: readFileSync(join(FIXTURES, 'test-server-key.pem')),
    },
    (_request, response) => response.end('{"ok":true}'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v2/deployments`;
  proxy = await startConnectProxy();
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await proxy.close();
});

async function probe(env: Record<string, string>): Promise<unknown> {
  const clean = { ...process.env };
  for (const name of [
    'NODE_EXTRA_CA_CERTS',
    'HTTPS_PROXY',
    'https_proxy',
    'NO_PROXY',
    'no_proxy',
    'ALL_PROXY',
    'all_proxy',
  ])
    delete clean[name];
  const result = await run(process.execPath, ['--import', 'tsx', PROBE, url], { env: { ...clean, ...env } });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

describe('a private CA bundle (NODE_EXTRA_CA_CERTS)', () => {
  it('without the bundle the certificate is not trusted', async () => {
    expect(await probe({})).toEqual({ failure: expect.stringMatching(/CERT|SIGNATURE|ISSUER/) as unknown });
  });

  it('with the bundle the request succeeds', async () => {
    expect(await probe({ NODE_EXTRA_CA_CERTS: CA_BUNDLE })).toEqual({ status: 200 });
  });

  it('with the bundle, through an HTTPS_PROXY tunnel too', async () => {
    proxy.tunnels.length = 0;
    expect(await probe({ NODE_EXTRA_CA_CERTS: CA_BUNDLE, HTTPS_PROXY: proxy.url })).toEqual({ status: 200 });
    expect(proxy.tunnels).toEqual([new URL(url).host]);
  });
});
