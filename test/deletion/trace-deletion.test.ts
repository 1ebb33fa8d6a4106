// TraceDeletion end to end: the operator against the Kubernetes and control-plane emulators
// (the platform data API on the same address), counting the delete requests the emulator
// answered. Batch boundaries, the metadata form, admission, a 429 storm, resume from the
// recorded batch index, verification before and after the weekend job, deletion of the
// object while submitting, and no API key anywhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRACE_DELETIONS } from '../../src/reconcilers/deletion/setup.js';
import { API_KEY, type Stack } from '../operator/harness.js';
import {
  DELETE_ROUTE,
  NAMESPACE,
  createTraceDeletion,
  idsWithOnePerBatch,
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

describe('TraceDeletion', () => {
  let stack: Stack;
  let session: string;

  beforeAll(async () => {
    stack = await startDeletionStack({ traceDeleteDelayMs: 2500 });
    await ingestTrace(stack, 'erasure');
    session = await sessionIdOf(stack, 'erasure');
  });
  afterAll(() => stack.close());

  it.each([
    [999, 1],
    [1000, 1],
    [1001, 2],
    [2500, 3],
  ])('sends %i ids in %i request(s) of at most 1000', async (count, requests) => {
    const before = await requestCounts(stack, DELETE_ROUTE);
    const name = `boundary-${count}`;
    await createTraceDeletion(stack, name, { sessionId: session, traceIds: randomIds(count) });
    const done = await waitForDeletion(stack, TRACE_DELETIONS, name, isPhase('Completed'));
    const after = await requestCounts(stack, DELETE_ROUTE);
    expect(after.accepted - before.accepted).toBe(requests);
    expect(done.status).toMatchObject({
      batchesSent: requests,
      batchesTotal: requests,
      idsRequested: count,
      tracesRemaining: 0,
    });
  });

  it('finds the traces still there until the weekend job ran, then completes', async () => {
    const real = [await ingestTrace(stack, 'erasure'), await ingestTrace(stack, 'erasure')];
    const ids = [real[0] ?? '', ...randomIds(1200), real[1] ?? ''];
    const phases: string[] = [];
    await createTraceDeletion(stack, 'weekend', { sessionId: session, traceIds: ids });
    const verifying = await waitForDeletion(stack, TRACE_DELETIONS, 'weekend', isPhase('Verifying'), phases);
    expect(verifying.status?.tracesRemaining).toBe(2);
    const done = await waitForDeletion(stack, TRACE_DELETIONS, 'weekend', isPhase('Completed'), phases);
    expect(phases).toEqual(expect.arrayContaining(['Verifying', 'Completed']));
    expect(phases.indexOf('Verifying')).toBeLessThan(phases.indexOf('Completed'));
    expect(done.status?.verifiedAt).toEqual(expect.any(String));
    expect(done.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(await remainingTraces(stack, session, real)).toEqual([]);
    const reasons = (
      await stack.eventsOnce(
        'weekend',
        (events) => events.some((event) => event.reason === 'Completed'),
        'Completed',
      )
    ).map((event) => event.reason);
    expect(reasons).toEqual(expect.arrayContaining(['Submitting', 'Submitted', 'Verifying', 'Completed']));
  });

  it('reads ids from a ConfigMap key, newline- or comma-separated', async () => {
    const real = await ingestTrace(stack, 'erasure');
    const ids = [real, ...randomIds(1500)];
    await stack.client.create(
      { group: '', version: 'v1', plural: 'configmaps' },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'erasure-ids', namespace: NAMESPACE },
        data: { ids: `${ids.slice(0, 700).join('\n')}\n${ids.slice(700).join(',')}\n` },
      },
    );
    await createTraceDeletion(stack, 'from-configmap', {
      sessionId: session,
      traceIdsFrom: { configMapKeyRef: { name: 'erasure-ids', key: 'ids' } },
    });
    const done = await waitForDeletion(stack, TRACE_DELETIONS, 'from-configmap', isPhase('Completed'));
    expect(done.status).toMatchObject({ batchesSent: 2, idsRequested: 1501 });
    expect(await remainingTraces(stack, session, [real])).toEqual([]);
  });

  it('deletes by metadata, workspace-wide, every trace with ANY of the pairs', async () => {
    const userTraces = [
      await ingestTrace(stack, 'erasure', { user_id: 'u-42' }),
      await ingestTrace(stack, 'other-project', { user_id: 'u-42' }),
      await ingestTrace(stack, 'other-project', { email: 'gone@example.com' }),
    ];
    const kept = await ingestTrace(stack, 'other-project', { user_id: 'u-7' });
    const before = await requestCounts(stack, DELETE_ROUTE);
    await createTraceDeletion(stack, 'gdpr', { metadata: { user_id: 'u-42', email: 'gone@example.com' } });
    const done = await waitForDeletion(stack, TRACE_DELETIONS, 'gdpr', isPhase('Completed'));
    expect((await requestCounts(stack, DELETE_ROUTE)).accepted - before.accepted).toBe(1);
    expect(done.status).toMatchObject({ batchesSent: 1, batchesTotal: 1, tracesRemaining: 0 });
    const other = await sessionIdOf(stack, 'other-project');
    expect(await remainingTraces(stack, session, userTraces)).toEqual([]);
    expect(await remainingTraces(stack, other, [...userTraces, kept])).toEqual([kept]);
  });

  it('refuses mixed forms and spec changes at admission', async () => {
    await expect(
      createTraceDeletion(stack, 'mixed', {
        sessionId: session,
        traceIds: randomIds(1),
        metadata: { user_id: 'u-1' },
      }),
    ).rejects.toThrow(/exactly one form/);
    await expect(createTraceDeletion(stack, 'no-ids', { sessionId: session })).rejects.toThrow(
      /exactly one form/,
    );
    await createTraceDeletion(stack, 'fixed', { metadata: { user_id: 'u-unknown' } });
    await expect(
      stack.client.mergePatch(TRACE_DELETIONS, NAMESPACE, 'fixed', {
        spec: { metadata: { user_id: 'u-2' } },
      }),
    ).rejects.toThrow(/spec is immutable/);
  });

  it('survives a 429 storm mid-submission: every batch accepted exactly once, none skipped', async () => {
    const real = [
      await ingestTrace(stack, 'erasure'),
      await ingestTrace(stack, 'erasure'),
      await ingestTrace(stack, 'erasure'),
    ];
    const ids = idsWithOnePerBatch(real, 2500);
    // The first request passes (slowly); the next three are throttled: the storm hits batch 2.
    await stack.admin('POST', '/faults', { method: 'POST', route: DELETE_ROUTE, latencyMs: 50, count: 1 });
    await stack.admin('POST', '/faults', {
      method: 'POST',
      route: DELETE_ROUTE,
      status: 429,
      count: 3,
      retryAfterSeconds: 0,
    });
    const before = await requestCounts(stack, DELETE_ROUTE);
    await createTraceDeletion(stack, 'storm', { sessionId: session, traceIds: ids });
    await waitForDeletion(stack, TRACE_DELETIONS, 'storm', isPhase('Completed'));
    const after = await requestCounts(stack, DELETE_ROUTE);
    expect(after.throttled - before.throttled).toBe(3);
    expect(after.accepted - before.accepted).toBe(3);
    expect(await remainingTraces(stack, session, real)).toEqual([]);
  });

  it('stops sending when the object is deleted while submitting (sent batches are not undone)', async () => {
    await stack.admin('POST', '/faults', { method: 'POST', route: DELETE_ROUTE, latencyMs: 300, count: 10 });
    const before = await requestCounts(stack, DELETE_ROUTE);
    await createTraceDeletion(stack, 'cancelled', { sessionId: session, traceIds: randomIds(8000) });
    await waitForDeletion(
      stack,
      TRACE_DELETIONS,
      'cancelled',
      (object) => (object.status?.batchesSent ?? 0) >= 1,
    );
    await stack.client.delete(TRACE_DELETIONS, NAMESPACE, 'cancelled');
    await stack.waitUntil(
      () => Promise.resolve(stack.logLines.some((line) => line.includes('submission stopped'))),
      'the operator stopped the submission',
    );
    const sent = (await requestCounts(stack, DELETE_ROUTE)).accepted - before.accepted;
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(sent).toBeLessThan(8);
    await stack.admin('DELETE', '/faults');
  });

  it('puts no API key in logs, events or status', async () => {
    const objects = await stack.client.list(TRACE_DELETIONS, { namespace: NAMESPACE });
    const events = await stack.events();
    const everything = [...stack.logLines, JSON.stringify(objects), JSON.stringify(events)].join('\n');
    expect(everything).not.toContain(API_KEY);
    expect(everything).not.toContain(JSON.stringify(API_KEY).slice(1, -1));
  });
});

describe('TraceDeletion after a crash', () => {
  let stack: Stack;
  afterAll(() => stack.close());

  it('resumes from the recorded batch index, then fails past the deadline naming the survivors', async () => {
    stack = await startDeletionStack({ operator: { deletionVerifyDeadlineMs: 1_500 } });
    const real = [
      await ingestTrace(stack, 'crash'),
      await ingestTrace(stack, 'crash'),
      await ingestTrace(stack, 'crash'),
    ];
    const session = await sessionIdOf(stack, 'crash');
    const ids = idsWithOnePerBatch(real, 2500);
    // The operator that crashed had recorded batch 1 as accepted; the next one starts after it.
    const { sent, object: failed } = await resumeAfterRecordedBatches(
      stack,
      'resumed',
      { sessionId: session, traceIds: ids },
      { batchesSent: 1, batchesTotal: 3 },
      'Failed',
    );
    expect(sent).toBe(2);
    // Batch 1 was not sent again: its trace survives; batches 2 and 3 were sent once each.
    expect(await remainingTraces(stack, session, real)).toEqual([real[0]]);
    expect(failed.status?.tracesRemaining).toBe(1);
    const stalled = failed.status?.conditions?.find((c) => c.type === 'Stalled');
    expect(stalled).toMatchObject({ status: 'True', reason: 'TracesSurvive' });
    expect(stalled?.message).toContain(real[0]);
  });
});

describe('TraceDeletion across an operator restart', () => {
  let stack: Stack;
  afterAll(() => stack.close());

  it('stops after the batch in flight, then a new operator resumes: every batch accepted exactly once', async () => {
    stack = await startDeletionStack();
    const real = [await ingestTrace(stack, 'restart'), await ingestTrace(stack, 'restart')];
    const session = await sessionIdOf(stack, 'restart');
    const ids = idsWithOnePerBatch(real, 6000);
    ids[5999] = real[1] ?? '';
    ids[1000] = crypto.randomUUID();
    await stack.admin('POST', '/faults', { method: 'POST', route: DELETE_ROUTE, latencyMs: 150, count: 100 });
    await createTraceDeletion(stack, 'restarted', { sessionId: session, traceIds: ids });
    await waitForDeletion(stack, TRACE_DELETIONS, 'restarted', (o) => (o.status?.batchesSent ?? 0) >= 2);
    await Promise.all(stack.operators.map((operator) => operator.stop()));

    const stopped = await stack.client.get<DeletionObject>(TRACE_DELETIONS, NAMESPACE, 'restarted');
    const sentBeforeRestart = (await requestCounts(stack, DELETE_ROUTE)).accepted;
    expect(stopped.status?.phase).toBe('Submitting');
    expect(stopped.status?.batchesSent).toBe(sentBeforeRestart);
    expect(sentBeforeRestart).toBeLessThan(6);

    await stack.startOperator();
    await waitForDeletion(stack, TRACE_DELETIONS, 'restarted', isPhase('Completed'));
    expect((await requestCounts(stack, DELETE_ROUTE)).accepted).toBe(6);
    expect(await remainingTraces(stack, session, real)).toEqual([]);
  });
});
