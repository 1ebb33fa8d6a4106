// The deletion reconcilers' error paths, on a scripted platform client (no server): a delete
// request the platform refuses (SubmitFailed: a Warning, an error for the controller's
// backoff, and a resumption that sends only what was not accepted), a trace-id ConfigMap that
// is missing or changes while a submitted deletion is verified (blocked IdsUnavailable, in its
// phase, nothing more read) and one that changes while it is submitted (Failed IdsChanged),
// and a refused connection whose Stalled status cannot be written.
import { describe, expect, it } from 'vitest';
import type {
  ExampleDeletionObject,
  ExampleDeletionSpec,
  ExampleDeletionStatus,
  TraceDeletionObject,
  TraceDeletionSpec,
  TraceDeletionStatus,
} from '../../src/api/deletion/index.js';
import type { ControlPlaneError, Result } from '../../src/controlplane/client/errors.js';
import type { DeletionPlatformClient } from '../../src/reconcilers/deletion/ports.js';
import type { WriteOutcome } from '../../src/runtime/reconcile/object-port.js';
import { awaitChange, failed, requeueAfter } from '../../src/runtime/reconcile/result.js';
import { ExampleDeletionReconciler } from '../../src/reconcilers/exampledeletion/reconciler.js';
import { TraceDeletionReconciler } from '../../src/reconcilers/tracedeletion/reconciler.js';
import { MemoryKube, RECHECK_MS, TIMINGS, quietLogger, realClock } from './reconciler-fixture.js';

const REFUSED: ControlPlaneError = {
  kind: 'Terminal',
  status: 400,
  detail: 'body.trace_ids: invalid',
  validation: [],
  message: 'POST /api/v1/runs/delete: HTTP 400 body.trace_ids: invalid',
  method: 'POST',
  route: '/api/v1/runs/delete',
  attempts: 1,
};

/** A platform whose every call is recorded and answered by the test's script. */
class ScriptedPlatform implements DeletionPlatformClient {
  readonly calls: Array<{ method: string; count?: number }> = [];
  /** Answers for deleteTraces / deleteExamples, in order; `true` accepts. */
  answers: Array<true | ControlPlaneError> = [];
  survivors: string[] = [];
  /** Called before each delete call is answered, with the number of calls so far. */
  beforeAnswer: (calls: number) => void = () => undefined;

  private next(): true | ControlPlaneError {
    this.beforeAnswer(this.calls.length);
    return this.answers.shift() ?? true;
  }

  deleteTraces: DeletionPlatformClient['deleteTraces'] = (_session, ids) => {
    this.calls.push({ method: 'deleteTraces', count: ids.length });
    const answer = this.next();
    return Promise.resolve<Result<void>>(
      answer === true ? { ok: true, value: undefined } : { ok: false, error: answer },
    );
  };

  deleteTracesByMetadata: DeletionPlatformClient['deleteTracesByMetadata'] = () => {
    this.calls.push({ method: 'deleteTracesByMetadata' });
    const answer = this.next();
    return Promise.resolve<Result<void>>(
      answer === true ? { ok: true, value: undefined } : { ok: false, error: answer },
    );
  };

  deleteExamples: DeletionPlatformClient['deleteExamples'] = (ids) => {
    this.calls.push({ method: 'deleteExamples', count: ids.length });
    const answer = this.next();
    return Promise.resolve(
      answer === true
        ? { ok: true as const, value: { count: ids.length, example_ids: [...ids] } }
        : { ok: false as const, error: answer },
    );
  };

  queryRuns: DeletionPlatformClient['queryRuns'] = () => {
    this.calls.push({ method: 'queryRuns' });
    const runs = this.survivors.map((id) => ({ id, trace_id: id }));
    return Promise.resolve({ ok: true as const, value: { runs, cursors: {} } });
  };

  searchExamples: DeletionPlatformClient['searchExamples'] = () => {
    this.calls.push({ method: 'searchExamples' });
    return Promise.resolve({ ok: true as const, value: [] });
  };
}

const uuids = (count: number) => Array.from({ length: count }, () => crypto.randomUUID());
const meta = (name: string) => ({ name, namespace: 'privacy', uid: `uid-${name}`, generation: 1 });
const condition = (status: { conditions?: Array<{ type: string }> } | undefined, type: string) =>
  status?.conditions?.find((c) => c.type === type);
const signal = () => new AbortController().signal;

/** What the client answers a call its caller aborted. */
const ABORTED: ControlPlaneError = {
  kind: 'Transient',
  unclear: true,
  message: 'POST /api/v1/runs/delete: request aborted',
  method: 'POST',
  route: '/api/v1/runs/delete',
  attempts: 1,
};

function traceRig(configMaps: Map<string, string> = new Map()) {
  const kube = new MemoryKube<TraceDeletionObject, TraceDeletionStatus>();
  const platform = new ScriptedPlatform();
  const reconciler = new TraceDeletionReconciler({
    kube,
    platformFor: () => ({ ok: true, client: platform, label: 'test connection' }),
    configMapValue: (_namespace, name, key) => Promise.resolve(configMaps.get(`${name}/${key}`)),
    clock: realClock,
    timings: TIMINGS,
    logger: quietLogger,
  });
  const put = (name: string, spec: TraceDeletionSpec, status?: TraceDeletionStatus) =>
    kube.put({ metadata: meta(name), spec, ...(status === undefined ? {} : { status }) });
  return { kube, platform, reconciler, put };
}

function exampleRig() {
  const kube = new MemoryKube<ExampleDeletionObject, ExampleDeletionStatus>();
  const platform = new ScriptedPlatform();
  const reconciler = new ExampleDeletionReconciler({
    kube,
    platformFor: () => ({ ok: true, client: platform, label: 'test connection' }),
    clock: realClock,
    timings: TIMINGS,
    logger: quietLogger,
  });
  const put = (name: string, spec: ExampleDeletionSpec) => kube.put({ metadata: meta(name), spec });
  return { kube, platform, reconciler, put };
}

/** A deletion already submitted and due for its verification check. */
const dueForVerification: TraceDeletionStatus = {
  phase: 'Submitted',
  batchesSent: 1,
  batchesTotal: 1,
  submittedAt: new Date(Date.now() - 60_000).toISOString(),
  nextCheckAt: new Date(Date.now() - 1).toISOString(),
};

describe('SubmitFailed: the platform refuses a delete request', () => {
  it('TraceDeletion by ids: records the accepted batch, warns, returns an error, and resumes with the rest only', async () => {
    const { kube, platform, reconciler, put } = traceRig();
    platform.answers = [true, REFUSED];
    const key = put('refused-batch', { sessionId: 'session-1', traceIds: uuids(1500) });

    const result = await reconciler.reconcile(key, signal());
    const message = `batch 2 of 2 failed: ${REFUSED.message}`;
    expect(result).toEqual(failed(new Error(message)));
    expect(platform.calls).toEqual([
      { method: 'deleteTraces', count: 1000 },
      { method: 'deleteTraces', count: 500 },
    ]);
    expect(kube.get(key)?.status).toMatchObject({ phase: 'Submitting', batchesSent: 1, batchesTotal: 2 });
    expect(kube.events.filter((event) => event.type === 'Warning')).toEqual([
      { type: 'Warning', reason: 'SubmitFailed', message },
    ]);

    // The controller retries: only the batch that was refused is sent again.
    platform.calls.length = 0;
    expect(await reconciler.reconcile(key, signal())).toMatchObject({
      kind: 'requeueAfter',
      ms: expect.any(Number),
    });
    expect(platform.calls).toEqual([{ method: 'deleteTraces', count: 500 }]);
    expect(kube.get(key)?.status).toMatchObject({ phase: 'Submitted', batchesSent: 2 });
  });

  it('TraceDeletion by metadata: warns and returns an error, and sends its one request again on retry', async () => {
    const { kube, platform, reconciler, put } = traceRig();
    platform.answers = [REFUSED];
    const key = put('refused-metadata', { metadata: { user_id: 'u-1' } });

    const message = `batch 1 of 1 failed: ${REFUSED.message}`;
    expect(await reconciler.reconcile(key, signal())).toEqual(failed(new Error(message)));
    expect(kube.get(key)?.status).toMatchObject({ phase: 'Submitting', batchesSent: 0 });
    expect(kube.events).toContainEqual({ type: 'Warning', reason: 'SubmitFailed', message });

    await reconciler.reconcile(key, signal());
    expect(platform.calls.map((call) => call.method)).toEqual([
      'deleteTracesByMetadata',
      'deleteTracesByMetadata',
    ]);
    expect(kube.get(key)?.status).toMatchObject({ phase: 'Submitted', batchesSent: 1 });
  });

  it('ExampleDeletion by ids: records the accepted batch, warns, returns an error, and resumes with the rest only', async () => {
    const { kube, platform, reconciler, put } = exampleRig();
    platform.answers = [true, REFUSED];
    const key = put('refused-examples', { exampleIds: uuids(1500), hardDelete: false });

    const result = await reconciler.reconcile(key, signal());
    const message = `batch 2 of 2 failed: ${REFUSED.message}`;
    expect(result).toEqual(failed(new Error(message)));
    expect(platform.calls).toEqual([
      { method: 'deleteExamples', count: 1000 },
      { method: 'deleteExamples', count: 500 },
    ]);
    expect(kube.get(key)?.status).toMatchObject({ phase: 'Submitting', batchesSent: 1, batchesTotal: 2 });
    expect(kube.events.filter((event) => event.type === 'Warning')).toEqual([
      { type: 'Warning', reason: 'SubmitFailed', message },
    ]);

    platform.calls.length = 0;
    await reconciler.reconcile(key, signal());
    expect(platform.calls.filter((call) => call.method === 'deleteExamples')).toEqual([
      { method: 'deleteExamples', count: 500 },
    ]);
    expect(kube.get(key)?.status?.phase).not.toBe('Submitting');
  });
});

describe('IdsUnavailable: the trace-id ConfigMap is gone or changes while a deletion is verified', () => {
  const spec: TraceDeletionSpec = {
    sessionId: 'session-1',
    traceIdsFrom: { configMapKeyRef: { name: 'ids', key: 'list' } },
  };

  it('a missing ConfigMap blocks the verification in its phase, reads nothing, warns once, and it goes on when the ConfigMap is back', async () => {
    const configMaps = new Map<string, string>();
    const { kube, platform, reconciler, put } = traceRig(configMaps);
    const key = put('verify-missing', spec, dueForVerification);

    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect(await reconciler.reconcile(key, signal())).toEqual(requeueAfter(RECHECK_MS));
    }
    const blocked = kube.get(key)?.status;
    expect(blocked).toMatchObject({ phase: 'Submitted', message: 'ConfigMap ids key list not found' });
    expect(condition(blocked, 'Stalled')).toMatchObject({ status: 'True', reason: 'IdsUnavailable' });
    expect(kube.events).toEqual([
      { type: 'Warning', reason: 'IdsUnavailable', message: 'ConfigMap ids key list not found' },
    ]);
    expect(platform.calls).toEqual([]);

    configMaps.set('ids/list', uuids(3).join('\n'));
    await reconciler.reconcile(key, signal());
    expect(platform.calls).toEqual([{ method: 'queryRuns' }]);
    const verified = kube.get(key)?.status;
    expect(verified?.phase).toBe('Completed');
    expect(condition(verified, 'Stalled')).toMatchObject({ status: 'False' });
  });

  it('a ConfigMap that changes between counting and reading blocks the verification and reads no id of the new text', async () => {
    const texts = [uuids(3).join('\n'), uuids(3).join('\n')];
    let reads = 0;
    const configMaps = new Map<string, string>();
    Object.defineProperty(configMaps, 'get', { value: () => texts[Math.min(reads++, 1)] });
    const { kube, platform, reconciler, put } = traceRig(configMaps);
    const key = put('verify-changed', spec, dueForVerification);

    expect(await reconciler.reconcile(key, signal())).toEqual(requeueAfter(RECHECK_MS));
    const blocked = kube.get(key)?.status;
    const message = 'ConfigMap ids key list changed while in use: create a new TraceDeletion';
    expect(blocked).toMatchObject({ phase: 'Submitted', message });
    expect(condition(blocked, 'Stalled')).toMatchObject({ status: 'True', reason: 'IdsUnavailable' });
    expect(kube.events).toEqual([{ type: 'Warning', reason: 'IdsUnavailable', message }]);
    expect(platform.calls).toEqual([]);
  });
});

describe('IdsChanged: the trace-id ConfigMap changes while a deletion is submitted', () => {
  it('fails the deletion without sending a batch of the new text', async () => {
    const texts = [uuids(3).join('\n'), uuids(3).join('\n')];
    let reads = 0;
    const configMaps = new Map<string, string>();
    Object.defineProperty(configMaps, 'get', { value: () => texts[Math.min(reads++, 1)] });
    const { kube, platform, reconciler, put } = traceRig(configMaps);
    const key = put('submit-changed', {
      sessionId: 'session-1',
      traceIdsFrom: { configMapKeyRef: { name: 'ids', key: 'list' } },
    });

    await reconciler.reconcile(key, signal());
    const failed = kube.get(key)?.status;
    const message = 'ConfigMap ids key list changed while in use: create a new TraceDeletion';
    expect(failed).toMatchObject({ phase: 'Failed', batchesSent: 0 });
    expect(condition(failed, 'Stalled')).toMatchObject({ status: 'True', reason: 'IdsChanged', message });
    expect(kube.events).toContainEqual({ type: 'Warning', reason: 'IdsChanged', message });
    expect(platform.calls).toEqual([]);
  });
});

/** A status subresource that refuses every write (the API server answers 500 or 403). */
class RefusingStatus<
  T extends { metadata: { name: string; namespace?: string } },
  S extends object,
> extends MemoryKube<T & { status?: S }, S> {
  override patchStatus(): Promise<WriteOutcome<T & { status?: S }>> {
    return Promise.resolve({ ok: false, reason: 'Failed', message: 'HTTP 500' });
  }
}

describe('a refused connection whose Stalled status cannot be written', () => {
  const refusal = {
    reason: 'ConnectionNotReady',
    message: 'PlatformConnection team is not Ready: not probed yet',
  };

  it('TraceDeletion: returns the write failure for the controller to back off, and warns once', async () => {
    const kube = new RefusingStatus<TraceDeletionObject, TraceDeletionStatus>();
    const reconciler = new TraceDeletionReconciler({
      kube,
      platformFor: () => ({ ok: false, ...refusal }),
      configMapValue: () => Promise.resolve(undefined),
      clock: realClock,
      timings: TIMINGS,
      logger: quietLogger,
    });
    const key = kube.put({ metadata: meta('unwritable'), spec: { sessionId: 's', traceIds: uuids(2) } });
    expect(await reconciler.reconcile(key, signal())).toEqual(failed({ message: 'write failed: HTTP 500' }));
    expect(kube.events).toEqual([{ type: 'Warning', ...refusal }]);
  });

  it('ExampleDeletion: returns the write failure for the controller to back off, and warns once', async () => {
    const kube = new RefusingStatus<ExampleDeletionObject, ExampleDeletionStatus>();
    const reconciler = new ExampleDeletionReconciler({
      kube,
      platformFor: () => ({ ok: false, ...refusal }),
      clock: realClock,
      timings: TIMINGS,
      logger: quietLogger,
    });
    const key = kube.put({ metadata: meta('unwritable'), spec: { exampleIds: uuids(2), hardDelete: false } });
    expect(await reconciler.reconcile(key, signal())).toEqual(failed({ message: 'write failed: HTTP 500' }));
    expect(kube.events).toEqual([{ type: 'Warning', ...refusal }]);
  });
});

describe('a pass stopped in the middle of a submission', () => {
  // Its object left this operator's cache (relabelled to another shard, or deleted) or the
  // operator lost its lease: the cut-off batch was not refused, so there is no SubmitFailed, no
  // error for the backoff, and what was accepted stays recorded for whoever resumes.
  const leftTheCache = new Error("privacy/x left this operator's cache (deleted, or moved to another shard)");

  /** A pass whose signal aborts while the platform answers its second delete call (which it then fails as aborted). */
  function abortedAtSecondCall(platform: ScriptedPlatform): AbortSignal {
    const pass = new AbortController();
    platform.beforeAnswer = (calls) => {
      if (calls === 2) pass.abort(leftTheCache);
    };
    platform.answers = [true, ABORTED];
    return pass.signal;
  }

  it('TraceDeletion: no SubmitFailed, the accepted batch recorded, nothing more sent', async () => {
    const { kube, platform, reconciler, put } = traceRig();
    const passSignal = abortedAtSecondCall(platform);
    const key = put('moved-away', { sessionId: 'session-1', traceIds: uuids(2500) });

    expect(await reconciler.reconcile(key, passSignal)).toEqual(awaitChange);
    expect(platform.calls.filter((call) => call.method === 'deleteTraces')).toHaveLength(2);
    expect(kube.events.filter((event) => event.type === 'Warning')).toEqual([]);
    expect(kube.get(key)?.status).toMatchObject({ phase: 'Submitting', batchesSent: 1, batchesTotal: 3 });
  });

  it('ExampleDeletion: no SubmitFailed, the accepted batch recorded, nothing more sent', async () => {
    const { kube, platform, reconciler, put } = exampleRig();
    const passSignal = abortedAtSecondCall(platform);
    const key = put('moved-away', { exampleIds: uuids(2500), hardDelete: false });

    expect(await reconciler.reconcile(key, passSignal)).toEqual(awaitChange);
    expect(platform.calls.filter((call) => call.method === 'deleteExamples')).toHaveLength(2);
    expect(kube.events.filter((event) => event.type === 'Warning')).toEqual([]);
    expect(kube.get(key)?.status).toMatchObject({ phase: 'Submitting', batchesSent: 1, batchesTotal: 3 });
  });
});
