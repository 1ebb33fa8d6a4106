// ExampleDeletion end to end: examples seeded through the platform API over HTTP, deleted
// through the CR, then read back as of earlier versions: a soft delete keeps the history, a
// hard delete zeroes it. The search form honours as_of (only examples created before it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_DELETIONS } from '../../src/reconcilers/deletion/setup.js';
import { API_KEY, type Stack } from '../operator/harness.js';
import {
  createDataset,
  createExample,
  createExampleDeletion,
  readExample,
  startDeletionStack,
  waitForDeletion,
  type DeletionObject,
} from './stack.js';

const isFinished = (object: DeletionObject) =>
  object.status?.phase === 'Completed' || object.status?.phase === 'Failed';

describe('ExampleDeletion', () => {
  let stack: Stack;
  let datasetId: string;

  beforeAll(async () => {
    stack = await startDeletionStack();
    datasetId = await createDataset(stack, 'evaluation');
  });
  afterAll(() => stack.close());

  const example = (metadata: Record<string, string>, createdAt?: Date) =>
    createExample(stack, datasetId, metadata, createdAt);

  const read = (id: string, asOf?: Date) => readExample(stack, id, asOf);

  it('soft delete tombstones the current version only; hard delete zeroes every version', async () => {
    const soft = await example({ suite: 'v1' });
    const hard = await example({ suite: 'v1' });
    const beforeDeletion = new Date();
    await createExampleDeletion(stack, 'soft', { exampleIds: [soft] });
    await createExampleDeletion(stack, 'hard', { exampleIds: [hard], hardDelete: true });
    for (const name of ['soft', 'hard']) {
      const done = await waitForDeletion(stack, EXAMPLE_DELETIONS, name, isFinished);
      expect(done.status).toMatchObject({ phase: 'Completed', matched: 1, deleted: 1, verified: true });
    }
    expect((await read(soft)).status).toBe(404);
    expect((await read(hard)).status).toBe(404);
    const softBefore = await read(soft, beforeDeletion);
    expect(softBefore.body).toMatchObject({
      inputs: { question: 'what is 2 + 2?' },
      metadata: { suite: 'v1' },
    });
    const hardBefore = await read(hard, beforeDeletion);
    expect(hardBefore.body.inputs ?? null).toBeNull();
    expect(hardBefore.body.metadata ?? null).toBeNull();
  });

  it('search deletes, across datasets, only examples created before asOf that have ANY pair', async () => {
    const now = Date.now();
    const asOf = new Date(now - 30 * 60_000);
    const older = await example({ run: 'r-2024-01' }, new Date(now - 2 * 60 * 60_000));
    const old = await example({ owner: 'team-a' }, new Date(now - 60 * 60_000));
    const afterAsOf = await example({ run: 'r-2024-01' }, new Date(now - 10 * 60_000));
    const unrelated = await example({ run: 'r-2025-07' }, new Date(now - 60 * 60_000));
    await createExampleDeletion(stack, 'clear-eval', {
      search: { metadata: { run: 'r-2024-01', owner: 'team-a' }, asOf: asOf.toISOString() },
    });
    const done = await waitForDeletion(stack, EXAMPLE_DELETIONS, 'clear-eval', isFinished);
    expect(done.status).toMatchObject({
      phase: 'Completed',
      matched: 2,
      deleted: 2,
      verified: true,
      batchesSent: 1,
    });
    expect((await read(older)).status).toBe(404);
    expect((await read(old)).status).toBe(404);
    expect((await read(afterAsOf)).status).toBe(200);
    expect((await read(unrelated)).status).toBe(200);
  });

  it("defaults asOf to the object's creation time: later examples are kept", async () => {
    const before = await example({ batch: 'b-9' }, new Date(Date.now() - 60_000));
    // Operator stopped, so that the example created after the object is there when it searches.
    await Promise.all(stack.operators.map((operator) => operator.stop()));
    await createExampleDeletion(stack, 'default-as-of', { search: { metadata: { batch: 'b-9' } } });
    const after = await example({ batch: 'b-9' });
    await stack.startOperator();
    const done = await waitForDeletion(stack, EXAMPLE_DELETIONS, 'default-as-of', isFinished);
    expect(done.status).toMatchObject({ phase: 'Completed', matched: 1, verified: true });
    expect((await read(before)).status).toBe(404);
    expect((await read(after)).status).toBe(200);
  });

  it('fails, naming the count, when ids were not deleted', async () => {
    await createExampleDeletion(stack, 'unknown-ids', { exampleIds: [crypto.randomUUID()] });
    const done = await waitForDeletion(stack, EXAMPLE_DELETIONS, 'unknown-ids', isFinished);
    expect(done.status).toMatchObject({ phase: 'Failed', matched: 1, deleted: 0, verified: false });
    expect(done.status?.conditions?.find((c) => c.type === 'Stalled')?.status).toBe('True');
  });

  it('refuses both forms at once, and spec changes', async () => {
    await expect(
      createExampleDeletion(stack, 'both', {
        exampleIds: [crypto.randomUUID()],
        search: { metadata: { a: 'b' } },
      }),
    ).rejects.toThrow(/exactly one of exampleIds or search/);
    await expect(
      stack.client.mergePatch(EXAMPLE_DELETIONS, 'team-a', 'soft', { spec: { hardDelete: true } }),
    ).rejects.toThrow(/spec is immutable/);
  });

  it('puts no API key in logs, events or status', async () => {
    const objects = await stack.client.list(EXAMPLE_DELETIONS, { namespace: 'team-a' });
    const everything = [
      ...stack.logLines,
      JSON.stringify(objects),
      JSON.stringify(await stack.events()),
    ].join('\n');
    expect(everything).not.toContain(API_KEY);
  });
});
