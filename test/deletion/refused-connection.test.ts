// A deletion whose connection is refused (DataDeletionNotAllowed, or the connection not found,
// not Ready or not allowed) changes nothing on the platform and says why, on every path of
// both reconcilers: a new submission, a resumed one, a verification of one already submitted,
// and a dry run (verification and counting read the workspace's data too). It stays in its
// phase, Stalled with the reason and message, says so in one Warning event, looks again only
// on the slow re-check, and goes on once the connection allows it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  DeletionPhase,
  ExampleDeletionObject,
  TraceDeletionObject,
} from '../../src/api/deletion/index.js';
import type { PlatformDataClient } from '../../src/platformdata/index.js';
import type { EmulatorClient } from '../controlplane-emulator/helpers.js';
import { ingestTrace, sessionId } from '../platform-emulator/helpers.js';
import {
  RECHECK_MS,
  exampleDeletionRig,
  platformForTests,
  traceDeletionRig,
  type MemoryKube,
  type Refusal,
  type SwitchableConnection,
} from './reconciler-fixture.js';
import { requeueAfter } from '../../src/runtime/reconcile/result.js';

const REFUSALS: Refusal[] = [
  {
    reason: 'DataDeletionNotAllowed',
    message:
      "the default connection: namespace team-b may not delete data through it (the operator's --data-deletion-namespaces, Helm value dataDeletionNamespaces, allows agent-system)",
  },
  { reason: 'ConnectionNotFound', message: 'ClusterPlatformConnection shared not found' },
  { reason: 'ConnectionNotReady', message: 'ClusterPlatformConnection shared is not Ready: not probed yet' },
  {
    reason: 'ConnectionNotAllowed',
    message: 'ClusterPlatformConnection shared: its namespaceSelector does not match namespace team-b',
  },
];

let api: EmulatorClient;
let client: PlatformDataClient;
let session: string;
let datasetId: string;

beforeAll(async () => {
  ({ api, client } = await platformForTests());
  await ingestTrace(api, 'refusals');
  session = await sessionId(api, 'refusals');
  const dataset = await api.call<{ id: string }>('POST', '/datasets', { body: { name: 'refusals' } });
  datasetId = dataset.body.id;
});
afterAll(() => client.close());

async function example(metadata: Record<string, string>): Promise<string> {
  const created = await api.call<{ id: string }>('POST', '/examples', {
    body: { dataset_id: datasetId, inputs: { q: 'x' }, outputs: { a: 'y' }, metadata },
  });
  return created.body.id;
}

const ids = (count: number) => Array.from({ length: count }, () => crypto.randomUUID());
const meta = (name: string) => ({
  name,
  namespace: 'team-b',
  uid: `uid-${name}`,
  generation: 1,
  creationTimestamp: new Date(Date.now() + 60_000).toISOString(),
});
const stalled = (status: { conditions?: Array<{ type: string }> } | undefined) =>
  status?.conditions?.find((c) => c.type === 'Stalled');

interface Case<T> {
  path: string;
  object: () => Promise<T>;
  /** The phase it stays in while refused. */
  blockedPhase: DeletionPhase;
  /** The phase it reaches once the connection allows it. */
  thenPhase: DeletionPhase;
}

const traceCases: Array<Case<TraceDeletionObject>> = [
  {
    path: 'submission by ids',
    object: async () => ({
      metadata: meta('by-ids'),
      spec: { sessionId: session, traceIds: [await ingestTrace(api, 'refusals'), ...ids(10)] },
    }),
    blockedPhase: 'Pending',
    thenPhase: 'Submitted',
  },
  {
    path: 'submission by metadata',
    object: () =>
      Promise.resolve({ metadata: meta('by-metadata'), spec: { metadata: { tenant: 'team-a' } } }),
    blockedPhase: 'Pending',
    thenPhase: 'Submitted',
  },
  {
    path: 'resumption after a recorded batch',
    object: () =>
      Promise.resolve({
        metadata: meta('resumed'),
        spec: { sessionId: session, traceIds: ids(1500) },
        status: { phase: 'Submitting', batchesSent: 1, batchesTotal: 2, idsRequested: 1500 },
      }),
    blockedPhase: 'Submitting',
    thenPhase: 'Submitted',
  },
  {
    path: 'verification of a submitted deletion',
    object: () =>
      Promise.resolve({
        metadata: meta('verifying'),
        spec: { sessionId: session, traceIds: ids(3) },
        status: {
          phase: 'Submitted',
          batchesSent: 1,
          batchesTotal: 1,
          submittedAt: new Date(Date.now() - 60_000).toISOString(),
          nextCheckAt: new Date(Date.now() - 1).toISOString(),
        },
      }),
    blockedPhase: 'Submitted',
    thenPhase: 'Completed',
  },
  {
    path: 'a dry run (it would read how many traces match)',
    object: () =>
      Promise.resolve({
        metadata: meta('dry-run'),
        spec: { metadata: { tenant: 'team-a' }, dryRun: true },
      }),
    blockedPhase: 'Pending',
    thenPhase: 'Completed',
  },
];

const exampleCases: Array<Case<ExampleDeletionObject>> = [
  {
    path: 'submission by ids',
    object: async () => ({
      metadata: meta('by-ids'),
      spec: { exampleIds: [await example({ run: 'r1' })], hardDelete: false },
    }),
    blockedPhase: 'Pending',
    thenPhase: 'Completed',
  },
  {
    path: 'submission by search',
    object: async () => {
      await example({ tenant: 'team-a' });
      return {
        metadata: meta('by-search'),
        spec: { search: { metadata: { tenant: 'team-a' } }, hardDelete: true },
      };
    },
    blockedPhase: 'Pending',
    thenPhase: 'Completed',
  },
  {
    path: 'resumption after a recorded batch',
    object: async () => ({
      metadata: meta('resumed'),
      spec: { exampleIds: [...ids(1000), await example({ run: 'r2' })], hardDelete: false },
      status: { phase: 'Submitting', batchesSent: 1, batchesTotal: 2, matched: 1001, deleted: 1000 },
    }),
    blockedPhase: 'Submitting',
    thenPhase: 'Completed',
  },
  {
    path: 'verification of a submitted search deletion',
    object: () =>
      Promise.resolve({
        metadata: meta('verifying'),
        spec: { search: { metadata: { gone: 'yes' } }, hardDelete: false },
        status: { phase: 'Verifying', batchesSent: 1, batchesTotal: 1, matched: 0, deleted: 0 },
      }),
    blockedPhase: 'Verifying',
    thenPhase: 'Completed',
  },
  {
    path: 'a dry run of a search (it would read how many examples match)',
    object: () =>
      Promise.resolve({
        metadata: meta('dry-run'),
        spec: { search: { metadata: { tenant: 'team-a' } }, hardDelete: true, dryRun: true },
      }),
    blockedPhase: 'Pending',
    thenPhase: 'Completed',
  },
];

const rows = <T>(cases: Array<Case<T>>) =>
  cases.flatMap((c) => REFUSALS.map((refusal) => ({ ...c, refusal, name: `${c.path}, ${refusal.reason}` })));

interface Reconciler {
  reconcile(key: string, signal: AbortSignal): Promise<unknown>;
}

/** Refused three times (one event, nothing sent), then allowed: it goes on from where it was. */
async function refusedThenAllowed<T extends { status?: S }, S extends { phase?: string }>(
  kube: MemoryKube<T & { metadata: { name: string } }, S>,
  connection: SwitchableConnection,
  reconciler: Reconciler,
  object: T & { metadata: { name: string } },
  refusal: Refusal,
  blockedPhase: DeletionPhase,
  thenPhase: DeletionPhase,
): Promise<void> {
  const before = structuredClone(object.status);
  const key = kube.put(object);
  connection.refusal = refusal;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    expect(await reconciler.reconcile(key, new AbortController().signal)).toEqual(requeueAfter(RECHECK_MS));
  }
  expect(connection.calls).toEqual([]);
  const blocked = kube.get(key)?.status as (S & Record<string, unknown>) | undefined;
  expect(blocked).toMatchObject({ ...before, phase: blockedPhase, message: refusal.message });
  expect(stalled(blocked as { conditions?: Array<{ type: string }> })).toMatchObject({
    status: 'True',
    ...refusal,
  });
  expect(kube.events).toEqual([{ type: 'Warning', ...refusal }]);

  connection.refusal = undefined;
  await reconciler.reconcile(key, new AbortController().signal);
  expect(connection.calls).not.toEqual([]);
  const after = kube.get(key)?.status as { phase?: string; conditions?: Array<{ type: string }> };
  expect(after.phase).toBe(thenPhase);
  expect(stalled(after)).toMatchObject({ status: thenPhase === 'Failed' ? 'True' : 'False' });
}

describe('a TraceDeletion whose connection is refused', () => {
  it.each(rows(traceCases))('$name', async ({ object, refusal, blockedPhase, thenPhase }) => {
    const { kube, connection, reconciler } = traceDeletionRig(client);
    await refusedThenAllowed(kube, connection, reconciler, await object(), refusal, blockedPhase, thenPhase);
  });
});

describe('an ExampleDeletion whose connection is refused', () => {
  it.each(rows(exampleCases))('$name', async ({ object, refusal, blockedPhase, thenPhase }) => {
    const { kube, connection, reconciler } = exampleDeletionRig(client);
    await refusedThenAllowed(kube, connection, reconciler, await object(), refusal, blockedPhase, thenPhase);
  });
});
