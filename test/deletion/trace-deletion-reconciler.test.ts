// The TraceDeletion reconciler on its own (in-memory cache, the platform emulator behind a
// client that records its calls): what it sends, and what it does not send. dryRun counts and
// deletes nothing; maxMatches refuses before the delete when more would be deleted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COUNT_CEILING,
  type TraceDeletionSpec,
  type TraceDeletionStatus,
} from '../../src/api/deletion/index.js';
import type { PlatformDataClient } from '../../src/platformdata/index.js';
import type { DeletionPlatformClient } from '../../src/reconcilers/deletion/ports.js';
import type { EmulatorClient } from '../controlplane-emulator/helpers.js';
import { ingestTrace, sessionId } from '../platform-emulator/helpers.js';
import { platformForTests, traceDeletionRig } from './reconciler-fixture.js';
import { awaitChange } from '../../src/runtime/reconcile/result.js';

let api: EmulatorClient;
let client: PlatformDataClient;
let session: string;

beforeAll(async () => {
  ({ api, client } = await platformForTests());
  await ingestTrace(api, 'reconciler');
  session = await sessionId(api, 'reconciler');
});
afterAll(() => client.close());

function setUp(platform: DeletionPlatformClient = client, configMaps: Record<string, string> = {}) {
  const { kube, connection, reconciler } = traceDeletionRig(platform, configMaps);
  const run = async (name: string, spec: TraceDeletionSpec, status?: TraceDeletionStatus) => {
    const key = kube.put({ metadata: meta(name), spec, ...(status === undefined ? {} : { status }) });
    const result = await reconciler.reconcile(key, new AbortController().signal);
    return { result, status: kube.get(key)?.status ?? {} };
  };
  return { kube, connection, run };
}

const meta = (name: string) => ({ name, namespace: 'privacy', uid: `uid-${name}`, generation: 1 });
const condition = (status: TraceDeletionStatus, type: string) =>
  status.conditions?.find((c) => c.type === type);
const randomIds = (count: number) => Array.from({ length: count }, () => crypto.randomUUID());

async function tagged(count: number, metadata: Record<string, string>): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) ids.push(await ingestTrace(api, 'reconciler', metadata));
  return ids;
}

async function stillThere(ids: string[]): Promise<number> {
  const found = await client.queryRuns({ sessionIds: [session], ids, isRoot: true });
  return found.ok ? found.value.runs.length : -1;
}

describe('TraceDeletion reconciler', () => {
  it('does not send a metadata delete again when its one request is recorded as accepted', async () => {
    const { connection, run } = setUp();
    // As after a crash between recording the accepted request and writing Submitted.
    const { status } = await run(
      'resumed-metadata',
      { metadata: { user_id: 'u-1' }, maxMatches: 1 },
      { phase: 'Submitting', batchesSent: 1, batchesTotal: 1 },
    );
    expect(connection.calls).toEqual([]);
    expect(status).toMatchObject({ phase: 'Submitted', batchesSent: 1 });
  });
});

describe('TraceDeletion dryRun', () => {
  it('counts the traces the metadata matches through the run query and deletes none', async () => {
    const traces = await tagged(3, { tenant: 'dry-a' });
    await tagged(1, { tenant: 'dry-b' });
    const { kube, connection, run } = setUp();
    const { result, status } = await run('dry-metadata', { metadata: { tenant: 'dry-a' }, dryRun: true });
    expect(result).toEqual(awaitChange);
    expect(connection.calls).toEqual(['queryRuns']);
    expect(status).toMatchObject({ phase: 'Completed', matched: 3 });
    expect(status).not.toHaveProperty('matchedIsLowerBound');
    expect(status).not.toHaveProperty('submittedAt');
    expect(condition(status, 'Ready')).toMatchObject({
      status: 'True',
      reason: 'DryRun',
      message: 'dry run, nothing deleted: 3 trace(s) match the metadata',
    });
    expect(kube.events).toEqual([{ type: 'Normal', reason: 'DryRun', message: status.message }]);
    expect(await stillThere(traces)).toBe(3);
  });

  it('counts the ids of the id forms without a call to the platform', async () => {
    const { connection, run } = setUp(client, { 'ids/ids': `${randomIds(1500).join('\n')}\n` });
    const inline = await run('dry-inline', { sessionId: session, traceIds: randomIds(42), dryRun: true });
    const fromConfigMap = await run('dry-configmap', {
      sessionId: session,
      traceIdsFrom: { configMapKeyRef: { name: 'ids', key: 'ids' } },
      dryRun: true,
    });
    expect(connection.calls).toEqual([]);
    expect(inline.status).toMatchObject({ phase: 'Completed', matched: 42 });
    expect(fromConfigMap.status).toMatchObject({ phase: 'Completed', matched: 1500 });
    expect(fromConfigMap.status.message).toBe('dry run, nothing deleted: 1500 trace id(s) named');
  });

  it(`stops counting at ${COUNT_CEILING} without maxMatches, and says it is a lower bound`, async () => {
    const pages: number[] = [];
    const refuse = () => Promise.reject(new Error('a dry run makes no other call'));
    const endless: DeletionPlatformClient = {
      deleteTraces: refuse,
      deleteTracesByMetadata: refuse,
      searchExamples: refuse,
      deleteExamples: refuse,
      queryRuns: (query) => {
        pages.push(query.limit ?? 100);
        const runs = Array.from({ length: query.limit ?? 100 }, () => ({ id: crypto.randomUUID() }));
        return Promise.resolve({ ok: true, value: { runs, cursors: { next: `${pages.length * 100}` } } });
      },
    };
    const { run } = setUp(endless);
    const { status } = await run('dry-endless', { metadata: { tenant: 'everyone' }, dryRun: true });
    expect(pages).toHaveLength(COUNT_CEILING / 100);
    expect(status).toMatchObject({ phase: 'Completed', matched: COUNT_CEILING, matchedIsLowerBound: true });
    expect(status.message).toContain(`at least ${COUNT_CEILING}`);
  });
});

describe('TraceDeletion maxMatches', () => {
  it('refuses a metadata deletion that matches more, counting one past the limit, sending no delete', async () => {
    const traces = await tagged(5, { tenant: 'max-a' });
    const { kube, connection, run } = setUp();
    const { status } = await run('too-many', { metadata: { tenant: 'max-a' }, maxMatches: 3 });
    expect(connection.calls).toEqual(['queryRuns']);
    expect(status).toMatchObject({ phase: 'Failed', matched: 4, matchedIsLowerBound: true });
    const message =
      'spec.maxMatches: at least 4 trace(s) match the metadata, more than the limit of 3; nothing was deleted';
    expect(condition(status, 'Stalled')).toMatchObject({ status: 'True', reason: 'TooManyMatches', message });
    expect(kube.events).toEqual([{ type: 'Warning', reason: 'TooManyMatches', message }]);
    expect(await stillThere(traces)).toBe(5);
  });

  it('submits a metadata deletion within the limit', async () => {
    await tagged(3, { tenant: 'max-b' });
    const { connection, run } = setUp();
    const { status } = await run('within', { metadata: { tenant: 'max-b' }, maxMatches: 3 });
    expect(connection.calls).toEqual(['queryRuns', 'deleteTracesByMetadata']);
    expect(status).toMatchObject({ phase: 'Submitted', matched: 3, batchesSent: 1 });
  });

  it('refuses more ids than the limit before any call', async () => {
    const { connection, run } = setUp();
    const { status } = await run('too-many-ids', {
      sessionId: session,
      traceIds: randomIds(5),
      maxMatches: 4,
    });
    expect(connection.calls).toEqual([]);
    expect(status).toMatchObject({ phase: 'Failed', matched: 5 });
    expect(status.message).toBe(
      'spec.maxMatches: 5 trace id(s) named, more than the limit of 4; nothing was deleted',
    );
  });

  it('refuses a dry run past the limit as the deletion would be refused', async () => {
    await tagged(3, { tenant: 'max-c' });
    const { connection, run } = setUp();
    const { status } = await run('dry-too-many', {
      metadata: { tenant: 'max-c' },
      maxMatches: 2,
      dryRun: true,
    });
    expect(connection.calls).toEqual(['queryRuns']);
    expect(condition(status, 'Stalled')).toMatchObject({ status: 'True', reason: 'TooManyMatches' });
  });
});
