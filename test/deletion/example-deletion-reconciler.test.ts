// The ExampleDeletion reconciler on its own (in-memory cache, the platform emulator behind a
// client that records its calls): dryRun counts and deletes nothing; maxMatches refuses before
// the delete when more would be deleted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExampleDeletionSpec, ExampleDeletionStatus } from '../../src/api/deletion/index.js';
import type { PlatformDataClient } from '../../src/platformdata/index.js';
import type { EmulatorClient } from '../controlplane-emulator/helpers.js';
import { exampleDeletionRig, platformForTests } from './reconciler-fixture.js';

let api: EmulatorClient;
let client: PlatformDataClient;
let datasetId: string;

beforeAll(async () => {
  ({ api, client } = await platformForTests());
  datasetId = (await api.call<{ id: string }>('POST', '/datasets', { body: { name: 'guards' } })).body.id;
});
afterAll(() => client.close());

async function examples(count: number, metadata: Record<string, string>): Promise<string[]> {
  const created = await api.call<Array<{ id: string }>>('POST', '/examples/bulk', {
    body: Array.from({ length: count }, (_, i) => ({
      dataset_id: datasetId,
      inputs: { question: `q${i}` },
      outputs: { answer: `a${i}` },
      metadata,
    })),
  });
  return created.body.map((example) => example.id);
}

/** How many of the examples still read with their inputs. */
async function readable(ids: string[]): Promise<number> {
  let count = 0;
  for (const id of ids) {
    const read = await api.call<{ inputs?: unknown }>('GET', `/examples/${id}`);
    if (read.status === 200 && read.body.inputs !== null) count += 1;
  }
  return count;
}

function setUp() {
  const { kube, connection, reconciler } = exampleDeletionRig(client);
  const run = async (name: string, spec: ExampleDeletionSpec, status?: ExampleDeletionStatus) => {
    const key = kube.put({
      // Created after the examples: the search's asOf defaults to this time.
      metadata: {
        name,
        namespace: 'evals',
        generation: 1,
        creationTimestamp: new Date(Date.now() + 1000).toISOString(),
      },
      spec,
      ...(status === undefined ? {} : { status }),
    });
    await reconciler.reconcile(key, new AbortController().signal);
    return kube.get(key)?.status ?? {};
  };
  return { kube, connection, run };
}

const condition = (status: ExampleDeletionStatus, type: string) =>
  status.conditions?.find((c) => c.type === type);

describe('ExampleDeletion dryRun', () => {
  it('counts the examples the search matches and deletes none', async () => {
    const ids = await examples(3, { suite: 'dry' });
    const { kube, connection, run } = setUp();
    const status = await run('dry-search', {
      search: { metadata: { suite: 'dry' } },
      hardDelete: true,
      dryRun: true,
    });
    expect(connection.calls).toEqual(['searchExamples']);
    expect(status).toMatchObject({ phase: 'Completed', matched: 3 });
    expect(status).not.toHaveProperty('deleted');
    expect(status).not.toHaveProperty('verified');
    expect(condition(status, 'Ready')).toMatchObject({
      status: 'True',
      reason: 'DryRun',
      message: 'dry run, nothing deleted: 3 example(s) match the search',
    });
    expect(kube.events).toEqual([{ type: 'Normal', reason: 'DryRun', message: status.message }]);
    expect(await readable(ids)).toBe(3);
  });

  it('counts the ids without a call to the platform, whatever its status says', async () => {
    const ids = await examples(2, { suite: 'dry-ids' });
    const { connection, run } = setUp();
    const status = await run(
      'dry-ids',
      { exampleIds: ids, hardDelete: true, dryRun: true },
      { phase: 'Submitting', batchesSent: 0 },
    );
    expect(connection.calls).toEqual([]);
    expect(status).toMatchObject({
      phase: 'Completed',
      matched: 2,
      message: 'dry run, nothing deleted: 2 example id(s) named',
    });
    expect(await readable(ids)).toBe(2);
  });
});

describe('ExampleDeletion maxMatches', () => {
  it('refuses a search that matches more, counting one past the limit, sending no delete', async () => {
    const ids = await examples(5, { suite: 'max-a' });
    const { kube, connection, run } = setUp();
    const status = await run('too-many', {
      search: { metadata: { suite: 'max-a' } },
      hardDelete: true,
      maxMatches: 3,
    });
    expect(connection.calls).toEqual(['searchExamples']);
    expect(status).toMatchObject({ phase: 'Failed', matched: 4, matchedIsLowerBound: true });
    const message =
      'spec.maxMatches: at least 4 example(s) match the search, more than the limit of 3; nothing was deleted';
    expect(condition(status, 'Stalled')).toMatchObject({ status: 'True', reason: 'TooManyMatches', message });
    expect(kube.events).toEqual([{ type: 'Warning', reason: 'TooManyMatches', message }]);
    expect(await readable(ids)).toBe(5);
  });

  it('deletes a search within the limit', async () => {
    const ids = await examples(3, { suite: 'max-b' });
    const { connection, run } = setUp();
    const status = await run('within', {
      search: { metadata: { suite: 'max-b' } },
      hardDelete: false,
      maxMatches: 3,
    });
    expect(connection.calls).toEqual(['searchExamples', 'deleteExamples', 'searchExamples']);
    expect(status).toMatchObject({ phase: 'Completed', matched: 3, deleted: 3, verified: true });
    expect(await readable(ids)).toBe(0);
  });

  it('refuses more ids than the limit before any call', async () => {
    const ids = await examples(3, { suite: 'max-c' });
    const { connection, run } = setUp();
    const status = await run('too-many-ids', { exampleIds: ids, hardDelete: false, maxMatches: 2 });
    expect(connection.calls).toEqual([]);
    expect(status).toMatchObject({
      phase: 'Failed',
      matched: 3,
      message: 'spec.maxMatches: 3 example id(s) named, more than the limit of 2; nothing was deleted',
    });
    expect(await readable(ids)).toBe(3);
  });
});
