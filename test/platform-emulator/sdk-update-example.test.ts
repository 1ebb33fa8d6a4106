// The official SDK's updateExample (multipart PATCH /v1/platform/datasets/{id}/examples):
// each update is a new version of the example, so a read as of an earlier time still sees the
// example as it was, and a later soft delete keeps that history.
import { Client } from 'langsmith';
import { describe, expect, it, vi } from 'vitest';
import { KEY, startPlatform } from './helpers.js';

const api = await startPlatform();
const client = new Client({ apiUrl: api.url, apiKey: KEY, timeout_ms: 10_000 });

async function examplesOf(datasetId: string, asOf?: Date) {
  const examples = [];
  for await (const example of client.listExamples({ datasetId, ...(asOf === undefined ? {} : { asOf }) }))
    examples.push(example);
  return examples;
}

/** A moment strictly after every change so far (the store stamps changes in ms). */
async function afterNow(): Promise<Date> {
  const mark = Date.now();
  await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(mark + 2));
  const moment = new Date();
  await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(moment.getTime() + 2));
  return moment;
}

describe('updateExample through the official SDK', () => {
  it('versions every update; an earlier version reads back; soft delete keeps the history', async () => {
    const dataset = await client.createDataset('versioned');
    const [example] = await client.createExamples([
      { dataset_id: dataset.id, inputs: { q: 'v1' }, outputs: { a: 1 }, metadata: { tag: 'one' } },
    ]);
    if (example === undefined) throw new Error('example not created');
    const firstVersion = await afterNow();

    const answer = await client.updateExample(example.id, { inputs: { q: 'v2' }, metadata: { tag: 'two' } });
    expect(answer).toMatchObject({ count: 1, example_ids: [example.id] });
    expect(await client.readExample(example.id)).toMatchObject({
      inputs: { q: 'v2' },
      outputs: { a: 1 },
      metadata: { tag: 'two' },
    });
    const secondVersion = await afterNow();

    // The form without a separate id, with the dataset named (no read before the PATCH).
    await client.updateExample({ id: example.id, dataset_id: dataset.id, outputs: { a: 3 } });
    expect(await examplesOf(dataset.id)).toMatchObject([{ id: example.id, inputs: { q: 'v2' }, outputs: { a: 3 } }]);
    const thirdVersion = await afterNow();

    await client.deleteExample(example.id);
    expect(await examplesOf(dataset.id)).toEqual([]);
    await expect(client.readExample(example.id)).rejects.toThrow(/404|not found/i);

    expect(await examplesOf(dataset.id, firstVersion)).toMatchObject([
      { inputs: { q: 'v1' }, outputs: { a: 1 }, metadata: { tag: 'one' } },
    ]);
    expect(await examplesOf(dataset.id, secondVersion)).toMatchObject([
      { inputs: { q: 'v2' }, outputs: { a: 1 }, metadata: { tag: 'two' } },
    ]);
    expect(await examplesOf(dataset.id, thirdVersion)).toMatchObject([{ inputs: { q: 'v2' }, outputs: { a: 3 } }]);
  });

  it('refuses an update of an example that is not in the dataset, or deleted, and changes nothing', async () => {
    const dataset = await client.createDataset('update-refusals');
    const other = await client.createDataset('update-elsewhere');
    const [kept, gone] = await client.createExamples([
      { dataset_id: dataset.id, inputs: { n: 1 } },
      { dataset_id: dataset.id, inputs: { n: 2 } },
    ]);
    if (kept === undefined || gone === undefined) throw new Error('examples not created');
    await client.deleteExample(gone.id);
    await expect(
      client.updateExample({ id: kept.id, dataset_id: other.id, inputs: { n: 9 } }),
    ).rejects.toThrow(/404|not found/i);
    await expect(
      client.updateExample({ id: gone.id, dataset_id: dataset.id, inputs: { n: 9 } }),
    ).rejects.toThrow(/404|not found/i);
    await expect(
      client.updateExamples([
        { id: kept.id, dataset_id: dataset.id, inputs: { n: 10 } },
        { id: crypto.randomUUID(), dataset_id: dataset.id, inputs: { n: 11 } },
      ]),
    ).rejects.toThrow(/404|not found/i);
    expect(await client.readExample(kept.id)).toMatchObject({ inputs: { n: 1 } });
  });
});
