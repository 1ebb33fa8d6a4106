// Auth: X-Api-Key or a bearer token; X-Tenant-Id for keys with several tenants; tenants
// see only their own deployments (another tenant's is a 404, never a 403).
import { beforeAll, describe, expect, it } from 'vitest';
import { tenantIdForKey } from '../../src/sim/controlplane/index.js';
import { keyFingerprint } from '../../src/sim/http/ids.js';
import { containerBody, startEmulator, type EmulatorClient, type WireDeployment } from './helpers.js';

const TENANT_A = '11111111-1111-4111-8111-111111111111';
const TENANT_B = '22222222-2222-4222-8222-222222222222';
let client: EmulatorClient;

beforeAll(async () => {
  client = await startEmulator({
    apiKeys: [
      { key: 'solo-key' },
      { key: 'multi-key', tenantIds: [TENANT_A, TENANT_B] },
      { key: 'b-key', tenantIds: [TENANT_B] },
    ],
  });
});

describe('authentication', () => {
  it.each<{ name: string; key: string | null; headers: Record<string, string>; status: number }>([
    { name: 'no key', key: null, headers: {}, status: 401 },
    { name: 'unknown key', key: 'nope', headers: {}, status: 401 },
    { name: 'X-Api-Key', key: 'solo-key', headers: {}, status: 200 },
    { name: 'bearer token', key: null, headers: { authorization: 'Bearer solo-key' }, status: 200 },
    { name: 'unknown bearer token', key: null, headers: { authorization: 'Bearer nope' }, status: 401 },
    { name: 'basic auth is not a key', key: null, headers: { authorization: 'Basic c29sbw==' }, status: 401 },
  ])('$name -> $status', async ({ key, headers, status }) => {
    const response = await client.call('GET', '/v2/listeners', { key, headers });
    expect(response.status).toBe(status);
    if (status === 401) expect(response.body).toEqual({ detail: expect.any(String) });
  });

  it('never echoes the key in an error or in the admin API', async () => {
    const response = await client.call('GET', '/v2/deployments', { key: 'wrong-key-value' });
    expect(JSON.stringify(response.body)).not.toContain('wrong-key-value');
    const tenants = await client.call('GET', '/_emulator/tenants');
    const stats = await client.call('GET', '/_emulator/stats');
    expect(JSON.stringify(tenants.body) + JSON.stringify(stats.body)).not.toMatch(/solo-key|multi-key/);
    expect(JSON.stringify(tenants.body)).toContain(keyFingerprint('solo-key'));
  });
});

describe('tenants', () => {
  it('a one-tenant key acts for the tenant derived from it, with or without X-Tenant-Id', async () => {
    const response = await client.call<WireDeployment>('POST', '/v2/deployments', {
      key: 'solo-key',
      body: containerBody((await client.defaults('solo-key')).listenerId),
    });
    expect(response.body.tenant_id).toBe(tenantIdForKey('solo-key'));
    const named = await client.call('GET', '/v2/listeners', {
      key: 'solo-key',
      headers: { 'x-tenant-id': tenantIdForKey('solo-key') },
    });
    expect(named.status).toBe(200);
  });

  it.each([
    { name: 'multi-tenant key without X-Tenant-Id', key: 'multi-key', tenant: undefined, status: 400 },
    { name: 'multi-tenant key with one of its tenants', key: 'multi-key', tenant: TENANT_A, status: 200 },
    {
      name: 'multi-tenant key with a foreign tenant',
      key: 'multi-key',
      tenant: tenantIdForKey('solo-key'),
      status: 403,
    },
    { name: 'one-tenant key with a foreign tenant', key: 'b-key', tenant: TENANT_A, status: 403 },
    { name: 'tenant header that is no uuid', key: 'multi-key', tenant: 'acme', status: 403 },
  ])('$name -> $status', async ({ key, tenant, status }) => {
    const headers: Record<string, string> = tenant ? { 'x-tenant-id': tenant } : {};
    const response = await client.call('GET', '/v2/deployments', { key, headers });
    expect(response.status).toBe(status);
  });

  it('isolates deployments: another tenant gets 404 for GET, PATCH, DELETE and revisions', async () => {
    const asA = { key: 'multi-key', headers: { 'x-tenant-id': TENANT_A } };
    const listeners = await client.call<{ resources: { id: string }[] }>('GET', '/v2/listeners', asA);
    const listenerId = listeners.body.resources[0]?.id ?? '';
    const created = await client.call<WireDeployment>('POST', '/v2/deployments', {
      ...asA,
      body: containerBody(listenerId),
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const asB = { key: 'b-key' };
    for (const [method, path] of [
      ['GET', `/v2/deployments/${id}`],
      ['PATCH', `/v2/deployments/${id}`],
      ['DELETE', `/v2/deployments/${id}`],
      ['GET', `/v2/deployments/${id}/revisions`],
      ['GET', `/v2/deployments/${id}/revisions/${created.body.latest_revision_id ?? ''}`],
    ] as const) {
      const response = await client.call(method, path, { ...asB, body: method === 'PATCH' ? {} : undefined });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body).toEqual({ detail: `Deployment ID ${id} not found.` });
    }
    const list = await client.call<{ resources: unknown[] }>('GET', '/v2/deployments', asB);
    expect(list.body.resources).toEqual([]);
    expect((await client.call('GET', `/v2/deployments/${id}`, asA)).status).toBe(200);
  });

  it('a listener of another tenant is unknown', async () => {
    const other = await client.defaults('solo-key');
    const listeners = await client.call<{ resources: { id: string }[] }>('GET', '/v2/listeners', {
      key: 'b-key',
    });
    expect(listeners.body.resources.map((l) => l.id)).not.toContain(other.listenerId);
    const response = await client.call('POST', '/v2/deployments', {
      key: 'b-key',
      body: containerBody(other.listenerId),
    });
    expect(response.status).toBe(400);
  });

  it('each tenant starts with one cluster listener and one integration with ids derived from the tenant', async () => {
    const tenants = await client.call<
      { tenant_id: string; listener_ids: string[]; integration_ids: string[] }[]
    >('GET', '/_emulator/tenants');
    expect(tenants.body.map((t) => t.tenant_id).sort()).toEqual(
      [tenantIdForKey('solo-key'), TENANT_A, TENANT_B].sort(),
    );
    const ids = new Set(tenants.body.flatMap((t) => [...t.listener_ids, ...t.integration_ids]));
    expect(ids.size).toBeGreaterThanOrEqual(6);
    const listeners = await client.call<{
      resources: { compute_type: string; compute_config: { cluster_namespaces: string[] } }[];
    }>('GET', '/v2/listeners', { key: 'b-key' });
    expect(listeners.body.resources[0]).toMatchObject({
      compute_type: 'cluster',
      compute_config: { cluster_namespaces: ['default', 'agents'] },
    });
  });
});
