// The tracing-project lookup spends only spare budget: while the key's buckets are under half
// full (a rollout is spending them) it comes back later without a call, and it goes ahead once
// spare, or once it has waited long enough.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { AgentDeploymentObject } from '../../src/reconcilers/agentdeployment/kube-port.js';
import type { SessionReader } from '../../src/reconcilers/deletion/ports.js';
import { TracingProjectReconciler } from '../../src/reconcilers/tracingproject/reconciler.js';

const ID = '6f1c2a4e-0000-4000-8000-000000000001';
const PROJECT = '6f1c2a4e-0000-4000-8000-0000000000aa';
const KEY = 'team-a/bot';
const signal = new AbortController().signal;

function owned(): AgentDeploymentObject {
  return {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name: 'bot', namespace: 'team-a', uid: 'uid-1', generation: 1, resourceVersion: '1' },
    spec: {},
    status: { ownership: { uid: 'uid-1', deploymentId: ID }, deploymentId: ID },
  } as unknown as AgentDeploymentObject;
}

function setUp(spareInMs: () => number, otherKeys: string[] = []) {
  let now = 1_000_000;
  const lookups: string[] = [];
  const written: unknown[] = [];
  const woken: string[] = [];
  let object: AgentDeploymentObject | undefined = owned();
  const others = new Map(otherKeys.map((key) => [key, owned()]));
  const client: SessionReader = {
    msUntilSessionLookupSpare: (share, quietMs) => {
      expect([share, quietMs]).toEqual([0.5, 2_000]);
      return spareInMs();
    },
    findSessionByName: (name) => {
      lookups.push(name);
      return Promise.resolve({ ok: true, value: { id: PROJECT, name } });
    },
    readSession: () => Promise.resolve({ ok: true, value: undefined }),
  };
  const reconciler = new TracingProjectReconciler({
    objects: { get: (key) => (key === KEY ? object : others.get(key)) },
    kube: {
      patchStatus: (_object, status) => {
        written.push(status);
        return Promise.resolve({ ok: true, value: _object });
      },
    },
    sessionsFor: () => ({ ok: true, client, label: 'default' }),
    recheckMs: 30_000,
    spareShare: 0.5,
    spareQuietMs: 2_000,
    maxDeferMs: 60_000,
    logger: pino({ level: 'silent' }),
    now: () => now,
    random: () => 0,
    wake: (key) => woken.push(key),
  });
  return {
    reconcile: () => reconciler.reconcile(KEY, signal),
    reconcileKey: (key: string) => reconciler.reconcile(key, signal),
    woken,
    advance: (ms: number) => (now += ms),
    remove: () => (object = undefined),
    removeKey: (key: string) => others.delete(key),
    lookups,
    written,
  };
}

describe('the tracing-project lookup on a busy key', () => {
  it('looks up at once when the key has spare budget', async () => {
    const run = setUp(() => 0);
    expect(await run.reconcile()).toEqual({ kind: 'awaitChange' });
    expect(run.lookups).toEqual(['bot']);
    expect(run.written).toEqual([expect.objectContaining({ tracingProject: { name: 'bot', id: PROJECT } })]);
  });

  it('waits without a call while the key is under half full, then looks up once it is spare', async () => {
    let spareInMs = 4_200;
    const run = setUp(() => spareInMs);
    expect(await run.reconcile()).toEqual({ kind: 'requeueAfter', ms: 4_200 });
    expect(run.lookups).toEqual([]);
    run.advance(4_200);
    spareInMs = 0;
    expect(await run.reconcile()).toEqual({ kind: 'awaitChange' });
    expect(run.lookups).toEqual(['bot']);
  });

  it('comes back no sooner than a second (the head of the line: 100 ms) and no later than the recheck period', async () => {
    let spareInMs = 3;
    const run = setUp(() => spareInMs, ['team-a/head']);
    expect(await run.reconcileKey('team-a/head')).toEqual({ kind: 'requeueAfter', ms: 100 });
    expect(await run.reconcile()).toEqual({ kind: 'requeueAfter', ms: 1_000 });
    spareInMs = 10 * 60_000;
    expect(await run.reconcile()).toEqual({ kind: 'requeueAfter', ms: 30_000 });
    expect(run.lookups).toEqual([]);
  });

  it('only the key that has waited longest keeps looking; the others back off as long as they waited', async () => {
    // Thousands of objects needing a lookup at once (a new operator over a fleet) wait on one
    // busy key; a look every second each would be thousands of passes a second spent learning
    // again that the budget is not spare. The head of the line looks for all of them.
    const run = setUp(() => 1_000, ['team-a/head']);
    expect(await run.reconcileKey('team-a/head')).toEqual({ kind: 'requeueAfter', ms: 1_000 });
    const waits: number[] = [];
    for (let look = 0; look < 7; look += 1) {
      // The head looks at the budget's pace all along.
      if (look === 4)
        expect(await run.reconcileKey('team-a/head')).toEqual({ kind: 'requeueAfter', ms: 1_000 });
      const result = await run.reconcile();
      if (result.kind !== 'requeueAfter') throw new Error(`look ${look}: ${result.kind}`);
      waits.push(result.ms);
      run.advance(result.ms);
    }
    expect(waits).toEqual([1_000, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000]);
    expect(run.lookups).toEqual([]);
  });

  it('the next key takes over the looking when the head needs no lookup any more', async () => {
    const run = setUp(() => 1_000, ['team-a/head']);
    await run.reconcileKey('team-a/head');
    run.advance(5_000);
    expect(await run.reconcile()).toEqual({ kind: 'requeueAfter', ms: 1_000 });
    run.advance(5_000);
    expect(await run.reconcile()).toEqual({ kind: 'requeueAfter', ms: 5_000 });
    run.removeKey('team-a/head');
    expect(await run.reconcileKey('team-a/head')).toEqual({ kind: 'awaitChange' });
    expect(run.woken).toEqual([KEY]);
    expect(await run.reconcile()).toEqual({ kind: 'requeueAfter', ms: 1_000 });
  });

  it('a lookup that finds the budget spare wakes the key that has waited longest, one at a time', async () => {
    // Backing off must not leave a key asleep for half a minute once the budget is spare:
    // each lookup that goes on spare budget hands the turn to the next waiting key.
    let spareInMs = 5_000;
    const run = setUp(() => spareInMs, ['team-a/first', 'team-a/second']);
    expect((await run.reconcileKey('team-a/first')).kind).toBe('requeueAfter');
    run.advance(10);
    expect((await run.reconcileKey('team-a/second')).kind).toBe('requeueAfter');
    expect(run.woken).toEqual([]);

    spareInMs = 0;
    expect(await run.reconcile()).toEqual({ kind: 'awaitChange' });
    expect(run.woken).toEqual(['team-a/first']);
    expect(await run.reconcileKey('team-a/first')).toEqual({ kind: 'awaitChange' });
    expect(run.woken).toEqual(['team-a/first', 'team-a/second']);
    expect(await run.reconcileKey('team-a/second')).toEqual({ kind: 'awaitChange' });
    expect(run.woken).toHaveLength(2);
    expect(run.lookups).toEqual(['bot', 'bot', 'bot']);
  });

  it('a lookup that goes only because it waited the longest deferral wakes nobody', async () => {
    const run = setUp(() => 5_000, ['team-a/other']);
    expect((await run.reconcile()).kind).toBe('requeueAfter');
    expect((await run.reconcileKey('team-a/other')).kind).toBe('requeueAfter');
    run.advance(60_000);
    expect(await run.reconcile()).toEqual({ kind: 'awaitChange' });
    expect(run.woken).toEqual([]);
  });

  it('goes ahead on a key that is never spare once it has waited the longest deferral', async () => {
    const run = setUp(() => 5_000);
    expect((await run.reconcile()).kind).toBe('requeueAfter');
    run.advance(59_999);
    expect((await run.reconcile()).kind).toBe('requeueAfter');
    expect(run.lookups).toEqual([]);
    run.advance(1);
    expect(await run.reconcile()).toEqual({ kind: 'awaitChange' });
    expect(run.lookups).toEqual(['bot']);
  });

  it('forgets a deferral when the object goes, so a new one waits afresh', async () => {
    const run = setUp(() => 5_000);
    expect((await run.reconcile()).kind).toBe('requeueAfter');
    run.advance(59_000);
    run.remove();
    expect(await run.reconcile()).toEqual({ kind: 'awaitChange' });
    run.advance(2_000);
    expect(run.lookups).toEqual([]);
  });
});
