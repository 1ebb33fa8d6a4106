// The emulator driven by the official langsmith SDK, which nobody here wrote: projects and
// traces (its default multipart ingest, single runs, JSON batches), datasets and examples; then
// deletion the way the operator sends it, and verification through the SDK again.
import { Client, RunTree } from 'langsmith';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KEY, remainingTraces, startPlatform } from './helpers.js';

const api = await startPlatform({ traceDeleteDelayMs: 300 });
const client = new Client({ apiUrl: api.url, apiKey: KEY, timeout_ms: 10_000 });

// listRuns/readRun warn once that they are deprecated (process.emitWarning): keep the output clean.
const deprecationShown = process.noDeprecation;
beforeAll(() => {
  process.noDeprecation = true;
});
afterAll(() => {
  process.noDeprecation = deprecationShown;
});

async function traceWithTree(project: string, metadata: Record<string, unknown>): Promise<string> {
  const root = new RunTree({
    name: 'agent',
    run_type: 'chain',
    inputs: { q: 'hi' },
    project_name: project,
    client,
    metadata,
  });
  await root.postRun();
  const child = root.createChild({ name: 'llm', run_type: 'llm', inputs: { prompt: 'hi' } });
  await child.postRun();
  await child.end({ text: 'hello' });
  await child.patchRun();
  await root.end({ answer: 'hello' });
  await root.patchRun();
  return root.id;
}

async function runsOf(project: string): Promise<{ id: string; trace_id?: string; outputs?: unknown }[]> {
  const runs = [];
  for await (const run of client.listRuns({ projectName: project })) runs.push(run);
  return runs;
}

async function examplesOf(
  datasetId: string,
  asOf?: Date,
): Promise<{ id: string; inputs: unknown; metadata?: unknown }[]> {
  const examples = [];
  for await (const example of client.listExamples({ datasetId, ...(asOf === undefined ? {} : { asOf }) }))
    examples.push(example);
  return examples;
}

describe('traces through the official SDK', () => {
  it('ingests by the SDK default (multipart), single runs and JSON batches, and deletes traces only after the weekend job', async () => {
    const project = await client.createProject({ projectName: 'erasure' });
    const kept = await traceWithTree('erasure', { user_id: 'u-keep' });
    const doomed = await traceWithTree('erasure', { user_id: 'u-1' });
    await client.awaitPendingTraceBatches();
    const single = crypto.randomUUID();
    const direct = new Client({ apiUrl: api.url, apiKey: KEY, autoBatchTracing: false });
    await direct.createRun({
      id: single,
      name: 'one',
      run_type: 'tool',
      inputs: {},
      project_name: 'erasure',
    });
    const batched = crypto.randomUUID();
    await client.batchIngestRuns({
      runCreates: [
        {
          id: batched,
          trace_id: batched,
          name: 'batched',
          run_type: 'chain',
          inputs: {},
          session_name: 'erasure',
          dotted_order: `20300101T000000000000Z${batched}`,
        },
      ],
    });

    const stats = await api.call<{ byRoute: { route: string; status: number; count: number }[] }>(
      'GET',
      '/_emulator/stats',
    );
    const routes = new Set(stats.body.byRoute.filter((r) => r.status === 202).map((r) => r.route));
    expect(routes).toEqual(new Set(['/runs/multipart', '/runs', '/runs/batch']));

    const before = await runsOf('erasure');
    expect(before).toHaveLength(6);
    expect(before.find((r) => r.id === doomed)?.outputs).toEqual({ answer: 'hello' });

    const response = await api.call('POST', '/api/v1/runs/delete', {
      body: { session_id: project.id, trace_ids: [doomed, single] },
    });
    expect([200, 202]).toContain(response.status);
    expect(response.body).toEqual({});
    // Scheduled, not done: nothing confirms it, the client has to look again.
    expect((await runsOf('erasure')).map((r) => r.trace_id)).toContain(doomed);

    await vi.waitFor(
      async () => expect(await remainingTraces(api, project.id, [doomed, single, kept])).toEqual([kept]),
      {
        timeout: 5_000,
        interval: 50,
      },
    );
    const after = await runsOf('erasure');
    expect(after.map((r) => r.trace_id).sort()).toEqual([kept, kept, batched].sort());
    await expect(client.readRun(doomed)).rejects.toThrow(/404|not found/i);

    // The SDK's newer (generated) run API reads the same store: v2 query and retrieve.
    const v2 = [];
    for await (const run of client.runs.query({
      project_ids: [project.id],
      is_root: true,
      selects: ['TRACE_ID', 'NAME'],
    })) {
      v2.push(run);
    }
    expect(v2.map((run) => run.trace_id).sort()).toEqual([kept, batched].sort());
    const retrieved = await client.runs.retrieve(kept, { project_id: project.id, selects: ['OUTPUTS'] });
    expect(retrieved).toMatchObject({ id: kept, outputs: { answer: 'hello' } });
    await expect(client.runs.retrieve(doomed, { project_id: project.id })).rejects.toThrow(/404|not found/i);
  });

  it('deletes by metadata across sessions (ANY pair), sparing traces ingested after the request', async () => {
    const a = await traceWithTree('gdpr-a', { user_id: 'u-42' });
    const b = await traceWithTree('gdpr-b', { tenant: 'acme', user_id: 'someone-else' });
    const other = await traceWithTree('gdpr-b', { user_id: 'u-7' });
    await client.awaitPendingTraceBatches();
    const response = await api.call('POST', '/api/v1/runs/delete', {
      body: { metadata: { user_id: 'u-42', tenant: 'acme' } },
    });
    expect(response.status).toBe(202);
    const late = await traceWithTree('gdpr-a', { user_id: 'u-42' });
    await client.awaitPendingTraceBatches();

    await vi.waitFor(
      async () => expect((await runsOf('gdpr-a')).map((r) => r.trace_id)).toEqual([late, late]),
      {
        timeout: 5_000,
        interval: 50,
      },
    );
    const left = new Set((await runsOf('gdpr-b')).map((r) => r.trace_id));
    expect(left).toEqual(new Set([other]));
    expect(left.has(a) || left.has(b)).toBe(false);
  });
});

describe('datasets and examples through the official SDK', () => {
  it('soft delete tombstones the current version only; hard delete zeroes every version', async () => {
    const dataset = await client.createDataset('evaluation-set');
    const [soft, hard, stays] = await client.createExamples([
      { dataset_id: dataset.id, inputs: { q: 'soft' }, outputs: { a: 1 }, metadata: { user_id: 'u-1' } },
      { dataset_id: dataset.id, inputs: { q: 'hard' }, outputs: { a: 2 }, metadata: { user_id: 'u-1' } },
      { dataset_id: dataset.id, inputs: { q: 'stays' }, outputs: { a: 3 }, metadata: { user_id: 'u-2' } },
    ]);
    if (soft === undefined || hard === undefined || stays === undefined)
      throw new Error('examples not created');
    await vi.waitFor(() =>
      expect(Date.now()).toBeGreaterThan(Date.parse(stays.modified_at ?? stays.created_at) + 5),
    );
    const beforeDeletion = new Date();
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(beforeDeletion.getTime() + 5));

    await client.deleteExample(soft.id);
    const hardResponse = await api.call('POST', '/v1/platform/datasets/examples/delete/', {
      body: { example_ids: [hard.id], hard_delete: true },
    });
    expect(hardResponse).toMatchObject({ status: 200, body: { count: 1, example_ids: [hard.id] } });

    expect((await examplesOf(dataset.id)).map((e) => e.id)).toEqual([stays.id]);
    await expect(client.readExample(soft.id)).rejects.toThrow(/404|not found/i);

    const history = await examplesOf(dataset.id, beforeDeletion);
    const byId = new Map(history.map((e) => [e.id, e]));
    expect(byId.get(soft.id)).toMatchObject({ inputs: { q: 'soft' }, metadata: { user_id: 'u-1' } });
    expect(byId.get(hard.id)).toMatchObject({ inputs: null, outputs: null, metadata: null });
    expect(byId.get(stays.id)).toMatchObject({ inputs: { q: 'stays' } });
  });

  it('hard-deletes through the SDK (its platform route) and soft-deletes a list (its DELETE /examples)', async () => {
    const dataset = await client.createDataset('clear-me');
    const examples = await client.createExamples(
      [1, 2, 3].map((n) => ({ dataset_id: dataset.id, inputs: { n }, outputs: { n } })),
    );
    const created = new Date();
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(created.getTime() + 5));
    const [first, second, third] = examples.map((e) => e.id);
    if (first === undefined || second === undefined || third === undefined)
      throw new Error('examples not created');
    await client.deleteExamples([first], { hardDelete: true });
    await client.deleteExamples([second, third]);
    expect(await examplesOf(dataset.id)).toEqual([]);
    const old = new Map((await examplesOf(dataset.id, created)).map((e) => [e.id, e.inputs]));
    expect(old).toEqual(
      new Map([
        [first, null],
        [second, { n: 2 }],
        [third, { n: 3 }],
      ]),
    );
  });
});
