// The admin API under /_emulator/ is the emulator's most powerful surface (reset, faults,
// every tenant's deployments), and the emulator runs next to browsers on developer
// machines and in CI. These tests act as the attacker: no token, a wrong token, a rebound
// DNS name, a cross-origin page; and they check that the cross-tenant dump shows no secret
// values and that a malformed percent escape is a 400, not a 500.
import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { MASKED_SECRET_VALUE } from '../../src/sim/controlplane/admin-handlers.js';
import { containerBody, startEmulator, type EmulatorClient, type WireDeployment } from './helpers.js';

let client: EmulatorClient;

beforeAll(async () => {
  client = await startEmulator();
});

/** A raw request, so that Host, Origin and Sec-Fetch-Site can be set as a browser would. */
function rawRequest(
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const url = new URL(client.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

const bearer = (): string => `Bearer ${client.emulator.adminToken}`;

describe('admin token', () => {
  it('is generated when not given, and long enough not to be guessed', () => {
    expect(client.emulator.adminToken.length).toBeGreaterThanOrEqual(32);
  });

  it('refuses every admin route without the token or with a wrong one, and changes nothing', async () => {
    await client.call('POST', '/_emulator/faults', { body: { status: 503, count: 1, route: '/nothing' } });
    const routes: [string, string][] = [
      ['POST', '/_emulator/reset'],
      ['GET', '/_emulator/tenants'],
      ['GET', '/_emulator/stats'],
      ['GET', '/_emulator/deployments'],
      ['GET', '/_emulator/tracing-projects'],
      ['POST', '/_emulator/faults'],
      ['DELETE', '/_emulator/faults'],
      ['PUT', '/_emulator/rate-limit'],
    ];
    for (const [method, path] of routes) {
      for (const adminToken of [null, 'wrong-token', `${client.emulator.adminToken}x`]) {
        const response = await client.call<{ detail: string }>(method, path, {
          adminToken,
          ...(method === 'GET' ? {} : { body: { off: true } }),
        });
        expect(response.status, `${method} ${path} with ${String(adminToken)}`).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
        expect(response.body.detail).toMatch(/Authorization: Bearer/);
      }
    }
    // The API key is not an admin token either.
    const withApiKey = await client.call('GET', '/_emulator/stats', { adminToken: 'emulator-key' });
    expect(withApiKey.status).toBe(401);
    // The fault added before is still there: the refused DELETE and reset did nothing.
    const stats = await client.call<{ total: number }>('GET', '/_emulator/stats');
    expect(stats.status).toBe(200);
    expect((await client.call('DELETE', '/_emulator/faults')).status).toBe(204);
  });

  it('guards the reset of the platform data API too: a refused reset keeps its sessions', async () => {
    // The platform half of the reset once ran before the token was checked: 401, and the data gone.
    const created = await client.call('POST', '/sessions', { body: { name: 'survives-refused-reset' } });
    expect(created.status).toBe(200);
    for (const adminToken of [null, 'wrong-token']) {
      expect((await client.call('POST', '/_emulator/reset', { adminToken })).status).toBe(401);
    }
    const evil = await rawRequest('POST', '/_emulator/reset', {
      host: 'attacker.example',
      authorization: bearer(),
    });
    expect(evil.status).toBe(403);
    const sessions = await client.call<{ name: string }[]>('GET', '/sessions?name=survives-refused-reset');
    expect(sessions.body.map((s) => s.name)).toEqual(['survives-refused-reset']);
  });

  it('is taken from the options', async () => {
    const other = await startEmulator({ adminToken: 'chosen-token-0123456789' });
    expect(other.emulator.adminToken).toBe('chosen-token-0123456789');
    expect(
      (await other.call('GET', '/_emulator/stats', { adminToken: 'chosen-token-0123456789' })).status,
    ).toBe(200);
  });
});

describe('Host and Origin checks (DNS rebinding, cross-origin pages)', () => {
  const port = (): string => new URL(client.url).port;

  it.each(['localhost', '127.0.0.1', '[::1]', 'app.localhost'])('serves Host %s', async (host) => {
    const response = await rawRequest('GET', '/_emulator/stats', {
      host: `${host}:${port()}`,
      authorization: bearer(),
    });
    expect(response.status).toBe(200);
  });

  it.each([
    'attacker.example',
    'attacker.example:80',
    '192.168.1.20',
    '127.0.0.1.attacker.example',
    'localhost.attacker.example',
  ])('refuses Host %j even with the token', async (host) => {
    const response = await rawRequest('POST', '/_emulator/reset', { host, authorization: bearer() });
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body)).toEqual({ detail: expect.stringMatching(/Host header/) });
  });

  it('refuses a cross-origin browser request even with the token', async () => {
    const browserHeaders: Record<string, string>[] = [
      { origin: 'http://attacker.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of browserHeaders) {
      const response = await rawRequest('POST', '/_emulator/reset', {
        host: `127.0.0.1:${port()}`,
        authorization: bearer(),
        ...headers,
      });
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(response.body).toMatch(/cross-origin/);
    }
  });

  it('serves a same-origin request', async () => {
    const response = await rawRequest('GET', '/_emulator/stats', {
      host: `127.0.0.1:${port()}`,
      origin: `http://127.0.0.1:${port()}`,
      'sec-fetch-site': 'same-origin',
      authorization: bearer(),
    });
    expect(response.status).toBe(200);
  });

  it('leaves the API itself to its key (Host is not checked there)', async () => {
    const response = await rawRequest('GET', '/v2/listeners', {
      host: 'agent-platform.example',
      'x-api-key': 'emulator-key',
    });
    expect(response.status).toBe(200);
  });
});

describe('the cross-tenant deployment dump', () => {
  it('masks every secret value and keeps the names', async () => {
    const { listenerId } = await client.defaults();
    const values = ['p"q\\r', 'Zq9', '-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n'];
    const created = await client.call<WireDeployment>('POST', '/v2/deployments', {
      body: containerBody(listenerId, {
        secrets: values.map((value, i) => ({ name: `S${i}`, value })),
      }),
    });
    expect(created.status).toBe(201);
    const dump = await client.call<WireDeployment[]>('GET', '/_emulator/deployments');
    const mine = dump.body.find((d) => d.id === created.body.id);
    expect(mine?.secrets).toEqual(values.map((_, i) => ({ name: `S${i}`, value: MASKED_SECRET_VALUE })));
    const text = JSON.stringify(dump.body);
    for (const value of values) expect(text).not.toContain(JSON.stringify(value).slice(1, -1));
    // The tenant still reads its own values through the API with its key.
    const own = await client.call<WireDeployment>('GET', `/v2/deployments/${created.body.id}`);
    expect(own.body.secrets.map((s) => s.value)).toEqual(values);
  });
});

describe('a malformed percent escape in the path', () => {
  it.each([
    ['GET', '/v2/deployments/%E0%A4%A', null],
    ['GET', '/v2/deployments/%zz', 'emulator-key'],
    ['DELETE', '/v2/deployments/%', 'emulator-key'],
    ['GET', '/%C0', null],
    ['POST', '/_emulator/deployments/%ff/push', null],
  ])('%s %s answers 400, with or without a key', async (method, path, key) => {
    const response = await rawRequest(method, path, {
      host: new URL(client.url).host,
      ...(key === null ? {} : { 'x-api-key': key }),
    });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({ detail: 'Malformed percent-encoding in the request path' });
  });
});
