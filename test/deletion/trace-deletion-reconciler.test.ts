// The TraceDeletion reconciler on its own (in-memory cache, the platform emulator behind a
// client that records its calls): what it sends, and what it does not send.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceDeletionObject, TraceDeletionStatus } from '../../src/api/deletion/index.js';
import type { PlatformDataClient } from '../../src/platformdata/index.js';
import { TraceDeletionReconciler } from '../../src/reconcilers/tracedeletion/reconciler.js';
import {
  MemoryKube,
  SwitchableConnection,
  TIMINGS,
  TestClock,
  platformForTests,
  quietLogger,
} from './reconciler-fixture.js';

let client: PlatformDataClient;

beforeAll(async () => {
  ({ client } = await platformForTests());
});
afterAll(() => client.close());

function setUp() {
  const kube = new MemoryKube<TraceDeletionObject, TraceDeletionStatus>();
  const connection = new SwitchableConnection(client);
  const reconciler = new TraceDeletionReconciler({
    kube,
    platformFor: connection.platformFor,
    configMapValue: () => Promise.resolve(undefined),
    clock: new TestClock(),
    timings: TIMINGS,
    logger: quietLogger,
  });
  const reconcile = (key: string) => reconciler.reconcile(key, new AbortController().signal);
  return { kube, connection, reconcile };
}

const meta = (name: string) => ({ name, namespace: 'privacy', uid: `uid-${name}`, generation: 1 });

describe('TraceDeletion reconciler', () => {
  it('does not send a metadata delete again when its one request is recorded as accepted', async () => {
    const { kube, connection, reconcile } = setUp();
    const key = kube.put({
      metadata: meta('resumed-metadata'),
      spec: { metadata: { user_id: 'u-1' } },
      // As after a crash between recording the accepted request and writing Submitted.
      status: { phase: 'Submitting', batchesSent: 1, batchesTotal: 1 },
    });
    await reconcile(key);
    expect(connection.calls).toEqual([]);
    expect(kube.get(key)?.status).toMatchObject({ phase: 'Submitted', batchesSent: 1 });
  });
});
