// The kit's status publisher: a pass that changes nothing writes nothing (or after an abort),
// a failed write means the same next step for every kind, and events come from conditions
// that moved.
import { describe, expect, it } from 'vitest';
import type { ObjectPort, WriteOutcome } from '../../../src/runtime/reconcile/object-port.js';
import { awaitChange, requeueNow } from '../../../src/runtime/reconcile/result.js';
import {
  afterFailedWrite,
  conditionTransitions,
  publishStatus,
} from '../../../src/runtime/reconcile/status-publisher.js';

interface Thing {
  metadata: { name: string; resourceVersion: string };
  status?: { phase?: string; syncedAt?: string };
}

function portAnswering(
  outcome: (object: Thing, status: NonNullable<Thing['status']>) => WriteOutcome<Thing>,
) {
  const writes: Array<NonNullable<Thing['status']>> = [];
  const port: ObjectPort<Thing> = {
    get: () => undefined,
    patchFinalizers: () => Promise.reject(new Error('not used')),
    patchStatus: (object, status) => {
      writes.push(status);
      return Promise.resolve(outcome(object, status));
    },
    event: () => undefined,
  };
  return { port, writes };
}

const thing: Thing = {
  metadata: { name: 't', resourceVersion: '1' },
  status: { phase: 'A', syncedAt: 't1' },
};

describe('publishStatus', () => {
  it('writes only a changed status, as the caller defines changed', async () => {
    const { port, writes } = portAnswering((object, status) => ({ ok: true, value: { ...object, status } }));
    const signal = new AbortController().signal;
    expect(await publishStatus(port, thing, { phase: 'A', syncedAt: 't1' }, signal)).toEqual({
      kind: 'unchanged',
      object: thing,
    });
    const ignoringSync = {
      changed: (before: Thing['status'], after: NonNullable<Thing['status']>) =>
        before?.phase !== after.phase,
    };
    expect(
      (await publishStatus(port, thing, { phase: 'A', syncedAt: 't2' }, signal, ignoringSync)).kind,
    ).toBe('unchanged');
    expect(writes).toEqual([]);
    const written = await publishStatus(port, thing, { phase: 'B', syncedAt: 't2' }, signal, ignoringSync);
    expect(written.kind).toBe('written');
    expect(writes).toEqual([{ phase: 'B', syncedAt: 't2' }]);
  });

  it("by default, a status equal but for its keys' order or an unset field is unchanged", async () => {
    const { port, writes } = portAnswering((object, status) => ({ ok: true, value: { ...object, status } }));
    const signal = new AbortController().signal;
    // A status rebuilt from the one read (a field set again, so moved to the end) says the same.
    const reordered: NonNullable<Thing['status']> = { syncedAt: 't1', phase: 'A' };
    expect((await publishStatus(port, thing, reordered, signal)).kind).toBe('unchanged');
    const withUnset: NonNullable<Thing['status']> = { phase: 'A', syncedAt: 't1' };
    Object.assign(withUnset, { reason: undefined });
    expect((await publishStatus(port, thing, withUnset, signal)).kind).toBe('unchanged');
    expect(writes).toEqual([]);
    expect((await publishStatus(port, thing, { syncedAt: 't1', phase: 'B' }, signal)).kind).toBe('written');
  });

  it('writes nothing once the pass is aborted (leadership lost)', async () => {
    const { port, writes } = portAnswering((object) => ({ ok: true, value: object }));
    const aborted = new AbortController();
    aborted.abort();
    expect((await publishStatus(port, thing, { phase: 'B' }, aborted.signal)).kind).toBe('unchanged');
    expect(writes).toEqual([]);
  });

  it('hands a failed write back, and says what it means for the pass', async () => {
    const { port } = portAnswering(() => ({
      ok: false,
      reason: 'Conflict',
      message: 'HTTP 409',
      status: 409,
    }));
    const published = await publishStatus(port, thing, { phase: 'B' }, new AbortController().signal);
    expect(published).toEqual({
      kind: 'failed',
      outcome: { ok: false, reason: 'Conflict', message: 'HTTP 409', status: 409 },
    });
    expect(afterFailedWrite({ reason: 'Conflict', message: 'x' })).toBe(requeueNow);
    expect(afterFailedWrite({ reason: 'Gone', message: 'x' })).toBe(awaitChange);
    expect(afterFailedWrite({ reason: 'Failed', message: 'HTTP 500' })).toEqual({
      kind: 'backoff',
      failure: { message: 'write failed: HTTP 500' },
    });
  });
});

describe('conditionTransitions', () => {
  const ready = (status: string, reason: string, message = 'm') => ({
    type: 'Ready',
    status,
    reason,
    message,
  });
  it('names a new condition, a changed status or reason, and a changed message only when asked', () => {
    expect(conditionTransitions(undefined, [ready('True', 'Ok')])).toEqual([ready('True', 'Ok')]);
    expect(conditionTransitions([ready('True', 'Ok')], [ready('True', 'Ok')])).toEqual([]);
    expect(conditionTransitions([ready('True', 'Ok')], [ready('False', 'Ok')])).toHaveLength(1);
    expect(conditionTransitions([ready('False', 'A')], [ready('False', 'B')])).toHaveLength(1);
    expect(conditionTransitions([ready('False', 'A', 'x')], [ready('False', 'A', 'y')])).toEqual([]);
    expect(
      conditionTransitions([ready('False', 'A', 'x')], [ready('False', 'A', 'y')], { message: true }),
    ).toHaveLength(1);
  });
});
