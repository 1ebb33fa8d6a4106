// List endpoints: {resources, offset} pages in creation order, limit 1..100 (default 20),
// filters by name, status and ids; revisions filter by status; integrations are an array.
import { beforeAll, describe, expect, it } from 'vitest';
import { Integration, Listener } from '../../src/controlplane/models/index.js';
import { containerBody, startEmulator, type EmulatorClient, type WireDeployment } from './helpers.js';

let client: EmulatorClient;
let listenerId: string;
const created: WireDeployment[] = [];

type Page = { resources: WireDeployment[]; offset: number };

beforeAll(async () => {
  client = await startEmulator();
  ({ listenerId } = await client.defaults());
  for (let i = 0; i < 25; i++) {
    const name = i % 5 === 0 ? `Special-${i}` : `plain-${i}`;
    const response = await client.call<WireDeployment>('POST', '/v2/deployments', {
      body: containerBody(listenerId, { name }),
    });
    created.push(response.body);
  }
});

describe('GET /v2/deployments', () => {
  it('defaults to 20 in creation order with offset 0', async () => {
    const response = await client.call<Page>('GET', '/v2/deployments');
    expect(response.body.offset).toBe(0);
    expect(response.body.resources.map((d) => d.id)).toEqual(created.slice(0, 20).map((d) => d.id));
  });

  it('pages with limit and offset and echoes the offset', async () => {
    const response = await client.call<Page>('GET', '/v2/deployments?limit=10&offset=20');
    expect(response.body.offset).toBe(20);
    expect(response.body.resources.map((d) => d.name)).toEqual(created.slice(20).map((d) => d.name));
    const beyond = await client.call<Page>('GET', '/v2/deployments?offset=500');
    expect(beyond.body).toEqual({ resources: [], offset: 500 });
  });

  it('filters by name_contains case-insensitively', async () => {
    const response = await client.call<Page>('GET', '/v2/deployments?name_contains=special&limit=100');
    expect(response.body.resources.map((d) => d.name)).toEqual([
      'Special-0',
      'Special-5',
      'Special-10',
      'Special-15',
      'Special-20',
    ]);
  });

  it('filters by deployment_ids (comma separated) and status', async () => {
    const ids = [created[3]?.id, created[7]?.id].join(',');
    const response = await client.call<Page>('GET', `/v2/deployments?deployment_ids=${ids}`);
    expect(response.body.resources.map((d) => d.id)).toEqual([created[3]?.id, created[7]?.id]);
    const ready = await client.call<Page>('GET', '/v2/deployments?status=READY&limit=100');
    expect(ready.body.resources).toHaveLength(25);
    const deleting = await client.call<Page>('GET', '/v2/deployments?status=AWAITING_DELETE');
    expect(deleting.body.resources).toHaveLength(0);
  });

  it('answers deployment_ids in creation order, each once, whatever order and repeats they come in', async () => {
    const unknown = '00000000-0000-4000-8000-00000000beef';
    const ids = [created[9]?.id, unknown, created[2]?.id, created[9]?.id, created[4]?.id].join(',');
    const response = await client.call<Page>('GET', `/v2/deployments?deployment_ids=${ids}&limit=100`);
    expect(response.body.resources.map((d) => d.id)).toEqual([
      created[2]?.id,
      created[4]?.id,
      created[9]?.id,
    ]);
    const paged = await client.call<Page>('GET', `/v2/deployments?deployment_ids=${ids}&limit=1&offset=1`);
    expect(paged.body.resources.map((d) => d.id)).toEqual([created[4]?.id]);
  });

  it.each([
    ['limit=0', ['query', 'limit'], 'greater_than_equal'],
    ['limit=101', ['query', 'limit'], 'less_than_equal'],
    ['limit=ten', ['query', 'limit'], 'int_parsing'],
    ['offset=-1', ['query', 'offset'], 'greater_than_equal'],
    ['status=SLEEPING', ['query', 'status'], 'enum'],
    ['deployment_ids=abc', ['query', 'deployment_ids', 0], 'uuid_parsing'],
  ])('?%s is 422 at %j', async (query, loc, type) => {
    const response = await client.call('GET', `/v2/deployments?${query}`);
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ detail: [expect.objectContaining({ loc, type })] });
  });

  it('limit 1 and 100 are accepted', async () => {
    expect((await client.call<Page>('GET', '/v2/deployments?limit=1')).body.resources).toHaveLength(1);
    expect((await client.call<Page>('GET', '/v2/deployments?limit=100')).body.resources).toHaveLength(25);
  });
});

describe('revisions, listeners and integrations', () => {
  it('lists revisions in creation order and filters by status list', async () => {
    const id = created[0]?.id ?? '';
    await client.call('PATCH', `/v2/deployments/${id}`, {
      body: { source_revision_config: { image_uri: 'registry.example/agent:2' } },
    });
    const all = await client.call<{ resources: { id: string; status: string }[]; offset: number }>(
      'GET',
      `/v2/deployments/${id}/revisions`,
    );
    expect(all.body.resources).toHaveLength(2);
    expect(all.body.resources[0]?.id).toBe(created[0]?.latest_revision_id);
    const deployed = await client.call<{ resources: unknown[] }>(
      'GET',
      `/v2/deployments/${id}/revisions?status=DEPLOYED,SKIPPED`,
    );
    expect(deployed.body.resources).toHaveLength(2);
    const failed = await client.call<{ resources: unknown[] }>(
      'GET',
      `/v2/deployments/${id}/revisions?status=BUILD_FAILED`,
    );
    expect(failed.body.resources).toHaveLength(0);
    const paged = await client.call<{ resources: { id: string }[] }>(
      'GET',
      `/v2/deployments/${id}/revisions?limit=1&offset=1`,
    );
    expect(paged.body.resources.map((r) => r.id)).toEqual([all.body.resources[1]?.id]);
    expect((await client.call('GET', `/v2/deployments/${id}/revisions?status=NOPE`)).status).toBe(422);
    expect((await client.call('GET', `/v2/deployments/${id}/revisions?limit=0`)).status).toBe(422);
  });

  it('answers listeners as a page and integrations as an array, in the models shapes', async () => {
    const listeners = await client.call<{ resources: unknown[]; offset: number }>('GET', '/v2/listeners');
    expect(listeners.body.offset).toBe(0);
    listeners.body.resources.forEach((l) => Listener.parse(l));
    expect((await client.call('GET', '/v2/listeners?limit=101')).status).toBe(422);
    const integrations = await client.call<unknown[]>('GET', '/v1/integrations/repo_host/install');
    expect(Array.isArray(integrations.body)).toBe(true);
    integrations.body.forEach((i) => Integration.parse(i));
  });

  it('404 for an unknown deployment or revision id, 422 for an id that is no uuid', async () => {
    const unknown = '00000000-0000-4000-8000-00000000abcd';
    expect(await client.call('GET', `/v2/deployments/${unknown}`)).toMatchObject({
      status: 404,
      body: { detail: `Deployment ID ${unknown} not found.` },
    });
    const id = created[1]?.id ?? '';
    expect((await client.call('GET', `/v2/deployments/${id}/revisions/${unknown}`)).status).toBe(404);
    expect(await client.call('GET', '/v2/deployments/not-a-uuid')).toMatchObject({
      status: 422,
      body: { detail: [{ loc: ['path', 'deployment_id'], type: 'uuid_parsing' }] },
    });
  });

  it('404 for unknown routes and 405 with Allow for wrong methods', async () => {
    expect((await client.call('GET', '/v2/nothing')).status).toBe(404);
    expect((await client.call('GET', '/v3/deployments')).status).toBe(404);
    const wrong = await client.call('PUT', '/v2/deployments');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST, GET');
    expect((await client.call('POST', '/v2/listeners', { body: {} })).status).toBe(405);
  });
});

describe('request size', () => {
  it('answers 413 for a body over 1 MiB', async () => {
    const response = await client.call('POST', '/v2/deployments', {
      rawBody: `{"name": "${'x'.repeat(1024 * 1024 + 10)}"}`,
    });
    expect(response).toMatchObject({ status: 413, body: { detail: expect.stringMatching(/exceeds/) } });
  });
});
