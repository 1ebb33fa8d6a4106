// Injected faults (status, latency, connection reset, by route and method, counted or
// by rate) and the admin API's reset, seeding and stats.
import { beforeEach, describe, expect, it } from 'vitest';
import { Listener } from '../../src/controlplane/models/index.js';
import { containerBody, startEmulator, type EmulatorClient, type WireDeployment } from './helpers.js';

let client: EmulatorClient;

beforeEach(async () => {
  client ??= await startEmulator();
  await client.call('POST', '/_emulator/reset');
});

describe('faults', () => {
  it('answers the injected status on the matching route and method only, `count` times', async () => {
    const added = await client.call<{ id: string }>('POST', '/_emulator/faults', {
      body: { method: 'get', route: '/v2/deployments/{deployment_id}', status: 503, count: 2 },
    });
    expect(added.status).toBe(201);
    expect(added.body.id).toMatch(/^[0-9a-f-]{36}$/);
    const { listenerId } = await client.defaults();
    const created = await client.call<WireDeployment>('POST', '/v2/deployments', {
      body: containerBody(listenerId),
    });
    expect(created.status).toBe(201);
    const path = `/v2/deployments/${created.body.id}`;
    const first = await client.call('GET', path);
    expect(first).toMatchObject({ status: 503, body: { detail: expect.any(String) } });
    expect((await client.call('GET', path)).status).toBe(503);
    expect((await client.call('GET', path)).status).toBe(200);
  });

  it('can send a 429 burst with Retry-After', async () => {
    await client.call('POST', '/_emulator/faults', { body: { status: 429, retryAfterSeconds: 3, count: 1 } });
    const throttled = await client.call('GET', '/v2/listeners');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('3');
    const stats = await client.call<{ throttled: number }>('GET', '/_emulator/stats');
    expect(stats.body.throttled).toBe(1);
  });

  it('resets the connection without an answer', async () => {
    await client.call('POST', '/_emulator/faults', {
      body: { route: '/v2/listeners', reset: true, count: 1 },
    });
    await expect(client.call('GET', '/v2/listeners')).rejects.toThrow();
    expect((await client.call('GET', '/v2/listeners')).status).toBe(200);
    const stats = await client.call<{ byRoute: { route: string; status: number }[] }>(
      'GET',
      '/_emulator/stats',
    );
    expect(stats.body.byRoute).toContainEqual(expect.objectContaining({ route: '/v2/listeners', status: 0 }));
  });

  it('delays by latencyMs and then answers normally', async () => {
    await client.call('POST', '/_emulator/faults', {
      body: { route: '/v2/listeners', latencyMs: 150, count: 1 },
    });
    const started = performance.now();
    const response = await client.call('GET', '/v2/listeners');
    expect(response.status).toBe(200);
    // A lower bound only: the fault must have delayed the answer at least that long.
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('rate 0 never fires; DELETE removes all faults; reset clears them too', async () => {
    await client.call('POST', '/_emulator/faults', { body: { status: 500, rate: 0 } });
    expect((await client.call('GET', '/v2/listeners')).status).toBe(200);
    await client.call('POST', '/_emulator/faults', { body: { status: 500 } });
    expect((await client.call('GET', '/v2/listeners')).status).toBe(500);
    expect((await client.call('DELETE', '/_emulator/faults')).status).toBe(204);
    expect((await client.call('GET', '/v2/listeners')).status).toBe(200);
    await client.call('POST', '/_emulator/faults', { body: { status: 500 } });
    await client.call('POST', '/_emulator/reset');
    expect((await client.call('GET', '/v2/listeners')).status).toBe(200);
  });

  it.each<[Record<string, unknown>, RegExp]>([
    [{}, /needs at least one/],
    [{ status: 503, reset: true }, /exclude/],
    [{ status: 99 }, /greater than or equal to 100/],
    [{ status: 500, rate: 2 }, /less than or equal to 1/],
  ])('rejects the fault %j with 422', async (body, message) => {
    const response = await client.call('POST', '/_emulator/faults', { body });
    expect(response.status).toBe(422);
    expect(JSON.stringify(response.body)).toMatch(message);
  });
});

describe('admin API', () => {
  it('seeds listeners and integrations that the tenant then sees and can use', async () => {
    const tenants = await client.call<{ tenant_id: string; key_fingerprint: string }[]>(
      'GET',
      '/_emulator/tenants',
    );
    const tenantId = tenants.body[0]?.tenant_id ?? '';
    expect(tenants.body[0]?.key_fingerprint).toMatch(/^[0-9a-f]{8}$/);
    const listener = await client.call<{ id: string }>('POST', `/_emulator/tenants/${tenantId}/listeners`, {
      body: { compute_type: 'cluster', compute_id: 'eu-cluster', cluster_namespaces: ['team-a'] },
    });
    expect(listener.status).toBe(201);
    Listener.parse(listener.body);
    const integration = await client.call<{ id: string }>(
      'POST',
      `/_emulator/tenants/${tenantId}/integrations`,
      {
        body: { name: 'second-org', installation_id: 42 },
      },
    );
    expect(integration.status).toBe(201);
    const listeners = await client.call<{ resources: { id: string }[] }>('GET', '/v2/listeners');
    expect(listeners.body.resources.map((l) => l.id)).toContain(listener.body.id);
    const created = await client.call('POST', '/v2/deployments', {
      body: containerBody(listener.body.id, {
        source_config: { listener_id: listener.body.id, listener_config: { cluster_namespace: 'team-a' } },
      }),
    });
    expect(created.status).toBe(201);
    const unknownTenant = await client.call(
      'POST',
      '/_emulator/tenants/00000000-0000-4000-8000-000000000009/listeners',
      {
        body: { compute_type: 'cluster' },
      },
    );
    expect(unknownTenant.status).toBe(404);
    expect(
      (
        await client.call('POST', `/_emulator/tenants/${tenantId}/listeners`, {
          body: { compute_type: 'gpu' },
        })
      ).status,
    ).toBe(422);
  });

  it('reset clears deployments and counters and re-seeds the same default ids', async () => {
    const before = await client.call<{ listener_ids: string[]; integration_ids: string[] }[]>(
      'GET',
      '/_emulator/tenants',
    );
    const { listenerId } = await client.defaults();
    await client.call('POST', '/v2/deployments', { body: containerBody(listenerId) });
    const tenantId =
      (await client.call<{ tenant_id: string }[]>('GET', '/_emulator/tenants')).body[0]?.tenant_id ?? '';
    await client.call('POST', `/_emulator/tenants/${tenantId}/listeners`, {
      body: { compute_type: 'serverless' },
    });
    expect((await client.call<unknown[]>('GET', '/_emulator/deployments')).body).toHaveLength(1);
    expect((await client.call('POST', '/_emulator/reset')).status).toBe(204);
    expect((await client.call<unknown[]>('GET', '/_emulator/deployments')).body).toEqual([]);
    expect((await client.call<unknown[]>('GET', '/_emulator/tracing-projects')).body).toEqual([]);
    expect((await client.call<{ total: number }>('GET', '/_emulator/stats')).body.total).toBe(0);
    expect((await client.call('GET', '/_emulator/tenants')).body).toEqual(before.body);
  });

  it('counts API requests by method, route template, status and key fingerprint', async () => {
    await client.call('GET', '/v2/deployments/00000000-0000-4000-8000-000000000001');
    await client.call('GET', '/v2/deployments/00000000-0000-4000-8000-000000000002');
    await client.call('GET', '/v2/listeners', { key: null });
    await client.call('GET', '/nowhere');
    const stats = await client.call<{ total: number; byRoute: unknown[] }>('GET', '/_emulator/stats');
    expect(stats.body.total).toBe(4);
    expect(stats.body.byRoute).toEqual(
      expect.arrayContaining([
        {
          method: 'GET',
          route: '/v2/deployments/{deployment_id}',
          status: 404,
          key_fingerprint: expect.stringMatching(/^[0-9a-f]{8}$/),
          count: 2,
        },
        { method: 'GET', route: '/v2/listeners', status: 401, key_fingerprint: null, count: 1 },
        { method: 'GET', route: '(unmatched)', status: 404, key_fingerprint: expect.any(String), count: 1 },
      ]),
    );
  });

  it('lists every deployment of every tenant', async () => {
    const { listenerId } = await client.defaults();
    await client.call('POST', '/v2/deployments', { body: containerBody(listenerId) });
    const all = await client.call<WireDeployment[]>('GET', '/_emulator/deployments');
    expect(all.body).toHaveLength(1);
    expect((await client.call('GET', '/_emulator/nothing')).status).toBe(404);
    expect((await client.call('GET', '/_emulator/reset')).status).toBe(405);
  });
});
