// TraceDeletion with ids from a list of ConfigMaps (`traceIdsFrom.configMapKeyRefs`): one
// ConfigMap holds at most 1 MiB (~27,000 uuids), so a large erasure is split over several. The
// ConfigMaps here hold 999, 1000 and 1001 ids, so that both batch boundaries fall inside a
// ConfigMap and batch 1 ends with the first id of the second one. Real traces sit on either side
// of each boundary: a batch sent twice would show as an extra request, a skipped id as a survivor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRACE_DELETIONS } from '../../src/reconcilers/deletion/setup.js';
import type { Stack } from '../operator/harness.js';
import {
  DELETE_ROUTE,
  NAMESPACE,
  createIdsConfigMap,
  createTraceDeletion,
  ingestTrace,
  isPhase,
  randomIds,
  remainingTraces,
  requestCounts,
  resumeAfterRecordedBatches,
  sessionIdOf,
  startDeletionStack,
  waitForDeletion,
  type DeletionObject,
} from './stack.js';

const SIZES = [999, 1000, 1001] as const;
const idsFrom = (...names: string[]) => ({
  configMapKeyRefs: names.map((name) => ({ name, key: 'ids' })),
});
const stalledMessage = (object: DeletionObject) =>
  object.status?.conditions?.find((c) => c.type === 'Stalled' && c.status === 'True')?.message;

/**
 * Three ConfigMaps `<prefix>-0..2` of 999, 1000 and 1001 random ids, with real traces placed at
 * the boundaries: [last of 1st (batch 1), first of 2nd (batch 1's last), second of 2nd (batch 2's
 * first), first of 3rd (batch 2's last), second of 3rd (batch 3's first), last of 3rd].
 */
async function boundaryConfigMaps(stack: Stack, sessionName: string, prefix: string) {
  const real: string[] = [];
  for (let i = 0; i < 6; i += 1) real.push(await ingestTrace(stack, sessionName));
  const [a, b, c, d, e, f] = real as [string, string, string, string, string, string];
  const maps = SIZES.map((size) => randomIds(size));
  const [first, second, third] = maps as [string[], string[], string[]];
  first[998] = a;
  second[0] = b;
  second[1] = c;
  third[0] = d;
  third[1] = e;
  third[1000] = f;
  const names = maps.map((_, i) => `${prefix}-${i}`);
  for (const [i, ids] of maps.entries()) await createIdsConfigMap(stack, names[i] ?? '', ids);
  return { real, refs: names.map((name) => ({ name, key: 'ids' })) };
}

describe('TraceDeletion from several ConfigMaps', () => {
  let stack: Stack;
  let session: string;

  beforeAll(async () => {
    stack = await startDeletionStack();
    await ingestTrace(stack, 'many-maps');
    session = await sessionIdOf(stack, 'many-maps');
  });
  afterAll(() => stack.close());

  it('sends the ids of every ConfigMap in list order, batches spanning the boundaries, each once', async () => {
    const { real, refs } = await boundaryConfigMaps(stack, 'many-maps', 'straddle');
    const before = await requestCounts(stack, DELETE_ROUTE);
    await createTraceDeletion(stack, 'straddle', {
      sessionId: session,
      traceIdsFrom: { configMapKeyRefs: refs },
    });
    const done = await waitForDeletion(stack, TRACE_DELETIONS, 'straddle', isPhase('Completed'));
    expect((await requestCounts(stack, DELETE_ROUTE)).accepted - before.accepted).toBe(3);
    expect(done.status).toMatchObject({
      batchesSent: 3,
      batchesTotal: 3,
      idsRequested: 3000,
      tracesRemaining: 0,
    });
    expect(await remainingTraces(stack, session, real)).toEqual([]);
  });

  it('reports a bad id by ConfigMap, key and position, and sends nothing', async () => {
    const kept = await ingestTrace(stack, 'many-maps');
    const bad = randomIds(20);
    bad[11] = 'not-a-uuid';
    await createIdsConfigMap(stack, 'bad-0', [kept, ...randomIds(10)]);
    await createIdsConfigMap(stack, 'bad-1', bad);
    const before = await requestCounts(stack, DELETE_ROUTE);
    await createTraceDeletion(stack, 'bad-id', {
      sessionId: session,
      traceIdsFrom: idsFrom('bad-0', 'bad-1'),
    });
    const blocked = await waitForDeletion(stack, TRACE_DELETIONS, 'bad-id', (o) => !!stalledMessage(o));
    expect(stalledMessage(blocked)).toBe('ConfigMap bad-1 key ids: trace id 12 is not a uuid');
    expect(blocked.status).toMatchObject({ phase: 'Pending' });
    expect(blocked.status?.batchesSent).toBeUndefined();
    expect((await requestCounts(stack, DELETE_ROUTE)).accepted).toBe(before.accepted);
    expect(await remainingTraces(stack, session, [kept])).toEqual([kept]);
  });

  it('reports a missing ConfigMap of the list by name', async () => {
    await createIdsConfigMap(stack, 'present-0', randomIds(5));
    const before = await requestCounts(stack, DELETE_ROUTE);
    await createTraceDeletion(stack, 'missing-map', {
      sessionId: session,
      traceIdsFrom: idsFrom('present-0', 'absent-1'),
    });
    const blocked = await waitForDeletion(stack, TRACE_DELETIONS, 'missing-map', (o) => !!stalledMessage(o));
    expect(stalledMessage(blocked)).toBe('ConfigMap absent-1 key ids not found');
    expect((await requestCounts(stack, DELETE_ROUTE)).accepted).toBe(before.accepted);
  });

  it('fails, naming the ConfigMap, when one changes while its ids are being sent', async () => {
    const names = ['changing-0', 'changing-1', 'changing-2', 'changing-3', 'changing-4'];
    for (const name of names) await createIdsConfigMap(stack, name, randomIds(1000));
    await stack.admin('POST', '/faults', { method: 'POST', route: DELETE_ROUTE, latencyMs: 300, count: 5 });
    await createTraceDeletion(stack, 'changing', {
      sessionId: session,
      traceIdsFrom: idsFrom(...names),
    });
    await waitForDeletion(stack, TRACE_DELETIONS, 'changing', (o) => (o.status?.batchesSent ?? 0) >= 1);
    await stack.client.mergePatch(
      { group: '', version: 'v1', plural: 'configmaps' },
      NAMESPACE,
      'changing-4',
      { data: { ids: randomIds(1000).join('\n') } },
    );
    const failed = await waitForDeletion(stack, TRACE_DELETIONS, 'changing', isPhase('Failed'));
    expect(stalledMessage(failed)).toBe(
      'ConfigMap changing-4 key ids changed while in use: create a new TraceDeletion',
    );
    expect(failed.status?.batchesSent).toBe(4);
    await stack.admin('DELETE', '/faults');
  });

  it('refuses both configMapKeyRef and configMapKeyRefs, an empty list and more than 100 at admission', async () => {
    const ref = { name: 'straddle-0', key: 'ids' };
    await expect(
      createTraceDeletion(stack, 'both', {
        sessionId: session,
        traceIdsFrom: { configMapKeyRef: ref, configMapKeyRefs: [ref] },
      }),
    ).rejects.toThrow(/traceIdsFrom: exactly one of configMapKeyRef or configMapKeyRefs/);
    await expect(
      createTraceDeletion(stack, 'empty', { sessionId: session, traceIdsFrom: { configMapKeyRefs: [] } }),
    ).rejects.toThrow(/traceIdsFrom\.configMapKeyRefs in body should have at least 1 items/);
    await expect(
      createTraceDeletion(stack, 'too-many', {
        sessionId: session,
        traceIdsFrom: { configMapKeyRefs: Array.from({ length: 101 }, () => ref) },
      }),
    ).rejects.toThrow(/traceIdsFrom\.configMapKeyRefs: Too many: 101: must have at most 100 items/);
    await expect(
      createTraceDeletion(stack, 'nameless', {
        sessionId: session,
        traceIdsFrom: { configMapKeyRefs: [{ name: '', key: 'ids' }] },
      }),
    ).rejects.toThrow(/configMapKeyRefs\[0\]\.name/);
    await expect(
      createTraceDeletion(stack, 'neither', { sessionId: session, traceIdsFrom: {} }),
    ).rejects.toThrow(/traceIdsFrom: exactly one of configMapKeyRef or configMapKeyRefs/);
  });
});

describe('TraceDeletion from several ConfigMaps after a crash', () => {
  let stack: Stack;
  afterAll(() => stack.close());

  it('resumes after a batch that ended inside the second ConfigMap: none sent twice, none skipped', async () => {
    stack = await startDeletionStack({ operator: { deletionVerifyDeadlineMs: 1_500 } });
    const { real, refs } = await boundaryConfigMaps(stack, 'crash-maps', 'resume');
    const session = await sessionIdOf(stack, 'crash-maps');
    // The operator that crashed had recorded batch 1 (the 999 ids of the first ConfigMap and the
    // first id of the second) as accepted; the next one starts at the second id of the second.
    const { sent, object: failed } = await resumeAfterRecordedBatches(
      stack,
      'resumed',
      { sessionId: session, traceIdsFrom: { configMapKeyRefs: refs } },
      { batchesSent: 1, batchesTotal: 3 },
      'Failed',
    );
    expect(sent).toBe(2);
    // Batch 1 was not sent again (its two real traces survive); all of batches 2 and 3 were.
    expect((await remainingTraces(stack, session, real)).sort()).toEqual(real.slice(0, 2).sort());
    expect(failed.status).toMatchObject({ batchesSent: 3, idsRequested: 3000, tracesRemaining: 2 });
  });
});
