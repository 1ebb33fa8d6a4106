// Data made with the official langsmith SDK, deleted through the CRs, checked with the SDK:
// traces are gone after the simulated job; soft-deleted examples keep their history and
// hard-deleted ones are zeroed in every version.
import { Client, RunTree } from 'langsmith';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXAMPLE_DELETIONS, TRACE_DELETIONS } from '../../src/reconcilers/deletion/setup.js';
import { API_KEY, type Stack } from '../operator/harness.js';
import {
  createExampleDeletion,
  createTraceDeletion,
  sessionIdOf,
  startDeletionStack,
  waitForDeletion,
  type DeletionObject,
} from './stack.js';

const completed = (object: DeletionObject) => object.status?.phase === 'Completed';

describe('deletions of data the official SDK made', () => {
  let stack: Stack;
  let client: Client;
  const deprecationShown = process.noDeprecation;

  beforeAll(async () => {
    // listRuns warns once that it is deprecated (process.emitWarning): keep the output clean.
    process.noDeprecation = true;
    stack = await startDeletionStack({ traceDeleteDelayMs: 300 });
    client = new Client({ apiUrl: stack.controlPlane.url, apiKey: API_KEY, timeout_ms: 10_000 });
  });
  afterAll(async () => {
    process.noDeprecation = deprecationShown;
    await stack.close();
  });

  it('a TraceDeletion removes the traces the SDK sees, after the simulated job', async () => {
    const ids: string[] = [];
    for (const question of ['a', 'b']) {
      const root = new RunTree({
        name: 'agent',
        run_type: 'chain',
        inputs: { question },
        project_name: 'sdk-project',
        client,
      });
      await root.postRun();
      await root.end({ answer: 'ok' });
      await root.patchRun();
      ids.push(root.id);
    }
    await client.awaitPendingTraceBatches();
    const roots = async () => {
      const seen: string[] = [];
      for await (const run of client.listRuns({ projectName: 'sdk-project', isRoot: true }))
        seen.push(run.id);
      return seen.sort();
    };
    await vi.waitFor(async () => expect(await roots()).toEqual([...ids].sort()), { timeout: 5_000 });
    await createTraceDeletion(stack, 'sdk-traces', {
      sessionId: await sessionIdOf(stack, 'sdk-project'),
      traceIds: ids,
    });
    await waitForDeletion(stack, TRACE_DELETIONS, 'sdk-traces', completed);
    expect(await roots()).toEqual([]);
  });

  it('an ExampleDeletion: soft keeps the history, hard zeroes every version', async () => {
    const dataset = await client.createDataset('sdk-evaluation');
    const [soft, hard, stays] = await client.createExamples([
      { dataset_id: dataset.id, inputs: { q: 'soft' }, outputs: { a: 1 }, metadata: { run: 'soft' } },
      { dataset_id: dataset.id, inputs: { q: 'hard' }, outputs: { a: 2 }, metadata: { run: 'hard' } },
      { dataset_id: dataset.id, inputs: { q: 'stays' }, outputs: { a: 3 }, metadata: { run: 'other' } },
    ]);
    if (soft === undefined || hard === undefined || stays === undefined)
      throw new Error('examples not created');
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(Date.parse(stays.created_at) + 5));
    const beforeDeletion = new Date();
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(beforeDeletion.getTime() + 5));
    await createExampleDeletion(stack, 'sdk-soft', { exampleIds: [soft.id] });
    await createExampleDeletion(stack, 'sdk-hard', {
      search: { metadata: { run: 'hard' }, asOf: beforeDeletion.toISOString() },
      hardDelete: true,
    });
    await waitForDeletion(stack, EXAMPLE_DELETIONS, 'sdk-soft', completed);
    await waitForDeletion(stack, EXAMPLE_DELETIONS, 'sdk-hard', completed);

    const now: string[] = [];
    for await (const example of client.listExamples({ datasetId: dataset.id })) now.push(example.id);
    expect(now).toEqual([stays.id]);
    const history = new Map<string, { inputs: unknown; metadata?: unknown }>();
    for await (const example of client.listExamples({ datasetId: dataset.id, asOf: beforeDeletion }))
      history.set(example.id, example);
    expect(history.get(soft.id)).toMatchObject({ inputs: { q: 'soft' }, metadata: { run: 'soft' } });
    expect(history.get(hard.id)).toMatchObject({ inputs: null, metadata: null });
  });
});
