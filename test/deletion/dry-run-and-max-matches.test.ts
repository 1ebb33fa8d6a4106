// dryRun and maxMatches end to end: the operator against the Kubernetes and platform emulators.
// A dry run counts and the data is all still there afterwards (read back through the platform
// API), with not one request on a delete route; maxMatches fails a deletion that would touch
// more, before any delete, and lets one within the limit through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_DELETIONS, TRACE_DELETIONS } from '../../src/reconcilers/deletion/setup.js';
import type { Stack } from '../operator/harness.js';
import {
  DATA_DELETE_ROUTES,
  callsTo,
  createDataset,
  createExample,
  createExampleDeletion,
  createTraceDeletion,
  ingestTrace,
  isPhase,
  readExample,
  readTrace,
  sessionIdOf,
  startDeletionStack,
  stalledWith,
  waitForDeletion,
  type DeletionObject,
} from './stack.js';

/**
 * A search's asOf defaults to the object's creation time, which has one-second resolution: the
 * examples made just before it may fall in the same second. A minute ahead covers them.
 */
const soon = () => new Date(Date.now() + 60_000).toISOString();
const ready = (object: DeletionObject) => object.status?.conditions?.find((c) => c.type === 'Ready');
const stalled = (object: DeletionObject) => object.status?.conditions?.find((c) => c.type === 'Stalled');

describe('dryRun and maxMatches', () => {
  let stack: Stack;
  let datasetId: string;

  beforeAll(async () => {
    stack = await startDeletionStack();
    datasetId = await createDataset(stack, 'guards');
  });
  afterAll(() => stack.close());

  const traces = async (count: number, metadata: Record<string, string>) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i += 1) ids.push(await ingestTrace(stack, 'guarded', metadata));
    return ids;
  };
  const examples = async (count: number, metadata: Record<string, string>) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i += 1) ids.push(await createExample(stack, datasetId, metadata));
    return ids;
  };
  const tracesReadable = async (ids: string[]) =>
    (await Promise.all(ids.map((id) => readTrace(stack, id)))).filter((read) => read.status === 200).length;
  const examplesReadable = async (ids: string[]) =>
    (await Promise.all(ids.map((id) => readExample(stack, id)))).filter(
      (read) => read.status === 200 && read.body.inputs !== null,
    ).length;

  it('a TraceDeletion dry run counts the traces the metadata matches and deletes none', async () => {
    const tagged = await traces(4, { user_id: 'u-dry' });
    const before = await callsTo(stack, DATA_DELETE_ROUTES);
    await createTraceDeletion(stack, 'dry-traces', { metadata: { user_id: 'u-dry' }, dryRun: true });
    const done = await waitForDeletion(stack, TRACE_DELETIONS, 'dry-traces', isPhase('Completed'));
    expect(done.status).toMatchObject({ matched: 4 });
    expect(ready(done)).toMatchObject({ status: 'True', reason: 'DryRun' });
    expect(await callsTo(stack, DATA_DELETE_ROUTES)).toBe(before);
    expect(await tracesReadable(tagged)).toBe(4);
    const reasons = (
      await stack.eventsOnce(
        'dry-traces',
        (events) => events.some((event) => event.reason === 'DryRun'),
        'DryRun',
      )
    ).map((event) => event.reason);
    expect(reasons).toEqual(['DryRun']);
  });

  it('an ExampleDeletion dry run of a hard delete counts the search and deletes none', async () => {
    const tagged = await examples(3, { eval_run: 'dry' });
    const before = await callsTo(stack, DATA_DELETE_ROUTES);
    await createExampleDeletion(stack, 'dry-examples', {
      search: { metadata: { eval_run: 'dry' }, asOf: soon() },
      hardDelete: true,
      dryRun: true,
    });
    const done = await waitForDeletion(stack, EXAMPLE_DELETIONS, 'dry-examples', isPhase('Completed'));
    expect(done.status).toMatchObject({ matched: 3 });
    expect(ready(done)).toMatchObject({ status: 'True', reason: 'DryRun' });
    expect(await callsTo(stack, DATA_DELETE_ROUTES)).toBe(before);
    expect(await examplesReadable(tagged)).toBe(3);
  });

  it('maxMatches fails a TraceDeletion that matches more, before any delete, naming the count and the limit', async () => {
    const tagged = await traces(3, { user_id: 'u-many' });
    const before = await callsTo(stack, DATA_DELETE_ROUTES);
    await createTraceDeletion(stack, 'too-many-traces', { metadata: { user_id: 'u-many' }, maxMatches: 2 });
    const failed = await waitForDeletion(stack, TRACE_DELETIONS, 'too-many-traces', isPhase('Failed'));
    expect(stalled(failed)).toMatchObject({
      reason: 'TooManyMatches',
      message:
        'spec.maxMatches: at least 3 trace(s) match the metadata, more than the limit of 2; nothing was deleted',
    });
    expect(await callsTo(stack, DATA_DELETE_ROUTES)).toBe(before);
    expect(await tracesReadable(tagged)).toBe(3);
  });

  it('maxMatches lets a TraceDeletion within the limit delete', async () => {
    const tagged = await traces(2, { user_id: 'u-few' });
    const before = await callsTo(stack, DATA_DELETE_ROUTES);
    await createTraceDeletion(stack, 'few-traces', { metadata: { user_id: 'u-few' }, maxMatches: 2 });
    const done = await waitForDeletion(stack, TRACE_DELETIONS, 'few-traces', isPhase('Completed'));
    expect(done.status).toMatchObject({ matched: 2, batchesSent: 1, tracesRemaining: 0 });
    expect(await callsTo(stack, DATA_DELETE_ROUTES)).toBe(before + 1);
    expect(await tracesReadable(tagged)).toBe(0);
  });

  it('maxMatches bounds the ids of a TraceDeletion by id', async () => {
    const tagged = await traces(3, {});
    const session = await sessionIdOf(stack, 'guarded');
    const before = await callsTo(stack, DATA_DELETE_ROUTES);
    await createTraceDeletion(stack, 'too-many-ids', { sessionId: session, traceIds: tagged, maxMatches: 2 });
    const failed = await waitForDeletion(
      stack,
      TRACE_DELETIONS,
      'too-many-ids',
      stalledWith('TooManyMatches'),
    );
    expect(failed.status).toMatchObject({ phase: 'Failed', matched: 3 });
    expect(await callsTo(stack, DATA_DELETE_ROUTES)).toBe(before);
    expect(await tracesReadable(tagged)).toBe(3);
  });

  it('maxMatches fails an ExampleDeletion search that matches more, and lets one within it delete', async () => {
    const many = await examples(3, { eval_run: 'many' });
    const few = await examples(2, { eval_run: 'few' });
    const before = await callsTo(stack, DATA_DELETE_ROUTES);
    await createExampleDeletion(stack, 'too-many-examples', {
      search: { metadata: { eval_run: 'many' }, asOf: soon() },
      maxMatches: 2,
    });
    const failed = await waitForDeletion(stack, EXAMPLE_DELETIONS, 'too-many-examples', isPhase('Failed'));
    expect(stalled(failed)).toMatchObject({ reason: 'TooManyMatches' });
    expect(stalled(failed)?.message).toMatch(/at least 3 example\(s\).*limit of 2/);
    expect(await callsTo(stack, DATA_DELETE_ROUTES)).toBe(before);
    expect(await examplesReadable(many)).toBe(3);

    await createExampleDeletion(stack, 'few-examples', {
      search: { metadata: { eval_run: 'few' }, asOf: soon() },
      maxMatches: 2,
    });
    const done = await waitForDeletion(stack, EXAMPLE_DELETIONS, 'few-examples', isPhase('Completed'));
    expect(done.status).toMatchObject({ matched: 2, deleted: 2, verified: true });
    expect(await callsTo(stack, DATA_DELETE_ROUTES)).toBe(before + 1);
    expect(await examplesReadable(few)).toBe(0);
  });
});
