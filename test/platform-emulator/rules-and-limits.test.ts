// The rules around the data: 1000 trace ids per delete, the two delete forms, malformed bodies
// (the service's error shape, nothing changed), the `as_of` boundary of example search, auth and
// tenancy, and both path forms (/api/v1/... and the SDK's root).
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { ingestTrace, KEY, ManualClock, remainingTraces, sessionId, startPlatform } from './helpers.js';

const clock = new ManualClock();
const api = await startPlatform({
  clock: clock.now,
  traceDeleteDelayMs: 60_000,
  apiKeys: [{ key: KEY }, { key: 'other-key' }],
});
const ids = (n: number): string[] => Array.from({ length: n }, () => crypto.randomUUID());

describe('trace delete', () => {
  it('accepts 1000 ids and refuses 1001 with a 422 naming trace_ids, scheduling nothing', async () => {
    const trace = await ingestTrace(api, 'limits');
    const session = await sessionId(api, 'limits');
    const refused = await api.call<{ detail: { loc: unknown[]; type: string }[] }>(
      'POST',
      '/api/v1/runs/delete',
      {
        body: { session_id: session, trace_ids: [trace, ...ids(1000)] },
      },
    );
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]?.loc).toEqual(['body', 'trace_ids']);
    clock.advance(61_000);
    expect(await remainingTraces(api, session, [trace])).toEqual([trace]);

    const accepted = await api.call('POST', '/api/v1/runs/delete', {
      body: { session_id: session, trace_ids: [trace, ...ids(999)] },
    });
    expect(accepted).toMatchObject({ status: 202, body: {} });
    clock.advance(59_000);
    expect(await remainingTraces(api, session, [trace])).toEqual([trace]);
    clock.advance(1_000);
    expect(await remainingTraces(api, session, [trace])).toEqual([]);
  });

  it('rejects mixed forms, an empty metadata object, a missing session and malformed JSON, changing nothing', async () => {
    const trace = await ingestTrace(api, 'rules', { user_id: 'u-9' });
    const session = await sessionId(api, 'rules');
    const bad: [unknown, number][] = [
      [{ session_id: session, trace_ids: [trace], metadata: { user_id: 'u-9' } }, 422],
      [{ metadata: {} }, 422],
      [{ trace_ids: [trace] }, 422],
      [{ session_id: session, trace_ids: ['not-a-uuid'] }, 422],
      [{ session_id: crypto.randomUUID(), trace_ids: [trace] }, 404],
    ];
    for (const [body, status] of bad) {
      expect((await api.call('POST', '/runs/delete', { body })).status).toBe(status);
    }
    const malformed = await api.call<{ detail: { type: string }[] }>('POST', '/runs/delete', {
      rawBody: '{"metadata": {"user_id": ',
    });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]?.type).toBe('json_invalid');
    clock.advance(120_000);
    expect(await remainingTraces(api, session, [trace])).toEqual([trace]);
  });

  it('keeps tenants apart: another key cannot delete or see the traces', async () => {
    const trace = await ingestTrace(api, 'tenant-a');
    const session = await sessionId(api, 'tenant-a');
    const other = await api.call('POST', '/runs/delete', {
      key: 'other-key',
      body: { session_id: session, trace_ids: [trace] },
    });
    expect(other.status).toBe(404);
    const query = await api.call<{ runs: unknown[] }>('POST', '/runs/query', {
      key: 'other-key',
      body: { id: [trace] },
    });
    expect(query.body.runs).toEqual([]);
    expect((await api.call('POST', '/runs/query', { key: 'wrong', body: { id: [trace] } })).status).toBe(401);
    expect((await api.call('POST', '/runs/query', { key: null, body: { id: [trace] } })).status).toBe(401);
  });
});

describe('run query', () => {
  it('finds runs by metadata with the filter language, paired key and value', async () => {
    const match = await ingestTrace(api, 'filter', { user_id: 'u-1', plan: 'pro' });
    await ingestTrace(api, 'filter', { user_id: 'u-2', plan: 'u-1' });
    const response = await api.call<{ runs: { id: string }[] }>('POST', '/api/v1/runs/query', {
      body: { filter: 'and(eq(metadata_key, "user_id"), eq(metadata_value, "u-1"))', is_root: true },
    });
    expect(response.body.runs.map((r) => r.id)).toEqual([match]);
    const invalid = await api.call<{ detail: string }>('POST', '/api/v1/runs/query', {
      body: { filter: 'eq(metadata_key' },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.detail).toMatch(/Invalid filter/);
  });

  it('pages with cursors', async () => {
    for (let i = 0; i < 5; i += 1) await ingestTrace(api, 'paging');
    const session = await sessionId(api, 'paging');
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { runs: { id: string }[]; cursors: { next: string | null } } } = await api.call(
        'POST',
        '/runs/query',
        { body: { session: [session], limit: 2, ...(cursor === null ? {} : { cursor }) } },
      );
      seen.push(...page.body.runs.map((r) => r.id));
      cursor = page.body.cursors.next;
    } while (cursor !== null);
    expect(new Set(seen).size).toBe(5);
  });
});

describe('examples', () => {
  async function dataset(name: string): Promise<string> {
    const response = await api.call<{ id: string }>('POST', '/datasets', { body: { name } });
    return response.body.id;
  }

  it('search: as_of is required across datasets, and only examples created before it match (ANY pair)', async () => {
    const first = await dataset('search-1');
    const second = await dataset('search-2');
    const createdAt = clock.now();
    const made = await api.call<{ id: string }[]>('POST', '/examples/bulk', {
      body: [
        { dataset_id: first, inputs: { q: 1 }, metadata: { user_id: 'u-5' } },
        { dataset_id: second, inputs: { q: 2 }, metadata: { org: 'acme', user_id: 'x' } },
        { dataset_id: second, inputs: { q: 3 }, metadata: { user_id: 'u-6' } },
      ],
    });
    const [a, b] = made.body.map((e) => e.id);
    // The spec's form: a GET with a JSON body (fetch refuses that, undici sends it).
    const search = async (asOf: number | null): Promise<{ status: number; body: { id: string }[] }> => {
      const query = asOf === null ? '' : `?as_of=${new Date(asOf).toISOString()}`;
      const response = await request(`${api.url}/api/v1/examples${query}`, {
        method: 'GET',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ metadata: { user_id: 'u-5', org: 'acme' } }),
      });
      return { status: response.statusCode, body: (await response.body.json()) as { id: string }[] };
    };
    expect((await search(null)).status).toBe(422);
    expect((await search(createdAt)).body).toEqual([]);
    expect((await search(createdAt + 1)).body.map((e) => e.id).sort()).toEqual([a, b].sort());
    // The SDK's form: metadata as a JSON query parameter.
    const metadata = encodeURIComponent(JSON.stringify({ org: 'acme' }));
    const viaQuery = await api.call<{ id: string }[]>(
      'GET',
      `/examples?as_of=${new Date(createdAt + 1).toISOString()}&metadata=${metadata}`,
    );
    expect(viaQuery.body.map((e) => e.id)).toEqual([b]);
  });

  it('the platform delete route answers {count, example_ids}, caps at 1000 ids, and errors with {error, details}', async () => {
    const id = await dataset('platform-delete');
    const made = await api.call<{ id: string }>('POST', '/examples', {
      body: { dataset_id: id, inputs: { q: 1 } },
    });
    for (const path of [
      '/v1/platform/datasets/examples/delete',
      '/api/v1/platform/datasets/examples/delete/',
    ]) {
      const tooMany = await api.call<{ error: string; details: string }>('POST', path, {
        body: { example_ids: [made.body.id, ...ids(1000)], hard_delete: true },
      });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.details).toMatch(/example_ids/);
    }
    const malformed = await api.call<{ error: string }>('POST', '/v1/platform/datasets/examples/delete/', {
      rawBody: '{',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toHaveProperty('error');
    expect((await api.call('GET', `/examples/${made.body.id}`)).status).toBe(200);
    const done = await api.call('POST', '/v1/platform/datasets/examples/delete/', {
      body: { example_ids: [made.body.id, crypto.randomUUID()] },
    });
    expect(done.body).toEqual({ count: 1, example_ids: [made.body.id] });
    expect((await api.call('GET', `/api/v1/examples/${made.body.id}`)).status).toBe(404);
  });
});

describe('utility routes', () => {
  it('GET /ok answers without a key, at the root and under /api/v1', async () => {
    expect(await api.call('GET', '/ok', { key: null })).toMatchObject({ status: 200, body: { ok: true } });
    expect(await api.call('GET', '/api/v1/ok', { key: null })).toMatchObject({
      status: 200,
      body: { ok: true },
    });
  });

  it('leaves the control plane where it was', async () => {
    expect((await api.call('GET', '/v2/listeners')).status).toBe(200);
    expect((await api.call('GET', '/v2/nothing')).status).toBe(404);
  });
});

describe('sharing the address', () => {
  it('answers 405 for a wrong method under /api/v1, and leaves other root paths to the control plane', async () => {
    const wrong = await api.call('PUT', '/api/v1/runs/query', { body: {} });
    expect(wrong.status).toBe(405);
    // Not a run id: a root path with a method the platform does not serve is not claimed.
    expect((await api.call('POST', '/runs/wait', { body: {} })).status).toBe(404);
    expect((await api.call('GET', '/api/v1/no-such-route')).status).toBe(404);
  });
});

describe('a bad batch changes nothing', () => {
  it('run ingest: a patch of an unknown run refuses the whole batch, creating no session and no run', async () => {
    const id = crypto.randomUUID();
    const response = await api.call('POST', '/runs/batch', {
      body: {
        post: [
          {
            id,
            name: 'a',
            run_type: 'chain',
            session_name: 'never-made',
            start_time: new Date().toISOString(),
          },
        ],
        patch: [{ id: crypto.randomUUID(), end_time: new Date().toISOString() }],
      },
    });
    expect(response.status).toBe(404);
    expect((await api.call<unknown[]>('GET', '/sessions?name=never-made')).body).toEqual([]);
    expect((await api.call('GET', `/runs/${id}`)).status).toBe(404);
  });

  it('example create: a duplicate id refuses the whole list', async () => {
    const created = await api.call<{ id: string }>('POST', '/datasets', { body: { name: 'atomic' } });
    const id = crypto.randomUUID();
    const response = await api.call('POST', '/examples/bulk', {
      body: [
        { dataset_id: created.body.id, inputs: { n: 1 } },
        { id, dataset_id: created.body.id, inputs: { n: 2 } },
        { id, dataset_id: created.body.id, inputs: { n: 3 } },
      ],
    });
    expect(response.status).toBe(409);
    const listed = await api.call<unknown[]>('GET', `/examples?dataset=${created.body.id}`);
    expect(listed.body).toEqual([]);
  });
});
