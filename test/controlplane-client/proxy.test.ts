// Egress through a proxy: the client honours https_proxy/HTTPS_PROXY, http_proxy/HTTP_PROXY
// and no_proxy/NO_PROXY as curl reads them (only NO_PROXY exempts a host, loopback
// included). A CONNECT proxy on loopback counts the tunnels it opens.
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/controlplane/budget/clock.js';
import { HttpTransport } from '../../src/controlplane/client/http-transport.js';
import { isExempt, proxyFor } from '../../src/controlplane/client/proxy-env.js';
import { startConnectProxy, type ConnectProxy } from './support/connect-proxy.js';

describe('proxyFor: the proxy variables as curl reads them', () => {
  const https = new URL('https://api.host.langchain.com');
  const http = new URL('http://127.0.0.1:8000');

  it('picks the variable for the scheme, lowercase first, then all_proxy', () => {
    expect(proxyFor(https, { HTTPS_PROXY: 'http://proxy:3128' })).toBe('http://proxy:3128');
    expect(proxyFor(https, { https_proxy: 'http://a:1', HTTPS_PROXY: 'http://b:2' })).toBe('http://a:1');
    expect(proxyFor(https, { HTTP_PROXY: 'http://proxy:3128' })).toBeUndefined();
    expect(proxyFor(http, { HTTP_PROXY: 'http://proxy:3128' })).toBe('http://proxy:3128');
    expect(proxyFor(http, { HTTPS_PROXY: 'http://proxy:3128' })).toBeUndefined();
    expect(proxyFor(https, { ALL_PROXY: 'http://all:1' })).toBe('http://all:1');
    expect(proxyFor(https, {})).toBeUndefined();
  });

  it('exempts loopback only when NO_PROXY lists it', () => {
    expect(proxyFor(http, { HTTP_PROXY: 'http://proxy:3128' })).toBe('http://proxy:3128');
    expect(proxyFor(new URL('http://localhost:8000'), { HTTP_PROXY: 'http://p:1' })).toBe('http://p:1');
    expect(proxyFor(http, { HTTP_PROXY: 'http://p:1', NO_PROXY: '127.0.0.1' })).toBeUndefined();
  });

  it.each([
    ['api.host.langchain.com', 'host.langchain.com', true],
    ['api.host.langchain.com', '.langchain.com', true],
    ['api.host.langchain.com', '*.langchain.com', true],
    ['api.host.langchain.com', 'API.HOST.LANGCHAIN.COM', true],
    ['api.host.langchain.com', 'example.com, other.org', false],
    ['notlangchain.com', 'langchain.com', false],
    ['anything.example', '*', true],
    ['10.1.2.3', '10.0.0.0/8', true],
    ['11.1.2.3', '10.0.0.0/8', false],
    ['127.0.0.1', 'localhost', false],
    ['[::1]', '::1', true],
    ['[fd00::5]', 'fd00::/8', true],
    ['api.host.langchain.com', 'api.host.langchain.com:443', false],
  ])('%s with NO_PROXY=%j exempt: %s', (host, noProxy, exempt) => {
    expect(isExempt(host, noProxy)).toBe(exempt);
  });
});

describe('HttpTransport through a CONNECT proxy', () => {
  let target: Server;
  let proxy: ConnectProxy;
  let targetUrl: string;

  beforeAll(async () => {
    target = createHttpServer((_request, response) => response.end('{"ok":true}'));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    proxy = await startConnectProxy();
  });

  afterAll(async () => {
    target.closeAllConnections();
    await new Promise((resolve) => target.close(resolve));
    await proxy.close();
  });

  beforeEach(() => {
    proxy.tunnels.length = 0;
  });

  async function get(env: Record<string, string>): Promise<number | string> {
    const transport = new HttpTransport(targetUrl, systemClock, undefined, env);
    try {
      const result = await transport.send({
        method: 'GET',
        path: '/v2/deployments',
        headers: {},
        deadlineMs: 5_000,
      });
      return result.type === 'response' ? result.status : result.code;
    } finally {
      await transport.close();
    }
  }

  it('sends the request through the proxy named by HTTP_PROXY, even to loopback', async () => {
    expect(await get({ HTTP_PROXY: proxy.url })).toBe(200);
    expect(proxy.tunnels).toEqual([new URL(targetUrl).host]);
  });

  it('connects directly when NO_PROXY lists the host', async () => {
    expect(await get({ HTTP_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.0/8' })).toBe(200);
    expect(proxy.tunnels).toEqual([]);
  });

  it('connects directly when no proxy variable is set', async () => {
    expect(await get({})).toBe(200);
    expect(proxy.tunnels).toEqual([]);
  });
});
