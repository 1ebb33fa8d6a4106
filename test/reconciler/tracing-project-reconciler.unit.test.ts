// The tracing-project lookup spends only spare budget: while the key's buckets are under half
// full (a rollout is spending them) it comes back later without a call, and it goes ahead once
// spare, or once it has waited long enough. The keys waiting on one connection form a line:
// the head looks at the budget's pace, the others sleep until an answer wakes them.
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
  // What the platform answers the next lookup (found, by default).
  let answer: () => Promise<Awaited<ReturnType<SessionReader['findSessionByName']>>> = () =>
    Promise.resolve({ ok: true, value: { id: PROJECT, name: 'bot' } });
  const client: SessionReader = {
    msUntilSessionLookupSpare: (share, quietMs) => {
      expect([share, quietMs]).toEqual([0.5, 2_000]);
      return spareInMs();
    },
    findSessionByName: (name) => {
      lookups.push(name);
      return answer();
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
    answerWith: (next: typeof answer) => (answer = next),
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

  it('the head comes back at the budget pace, no sooner than 100 ms and no later than the recheck period', async () => {
    let spareInMs = 3;
    const run = setUp(() => spareInMs);
    expect(await run.reconcile()).toEqual({ kind: 'requeueAfter', ms: 100 });
    spareInMs = 10 * 60_000;
    expect(await run.reconcile()).toEqual({ kind: 'requeueAfter', ms: 30_000 });
    expect(run.lookups).toEqual([]);
  });

  it('only the key that has waited longest keeps looking; the others sleep until woken, their longest deferral as their only timer', async () => {
    // Thousands of objects needing a lookup at once (a new operator over a fleet) wait on one
    // busy key; each coming back to learn again that the budget is not spare was 63,000 passes
    // in 2.5 minutes at 10,000 objects. The head of the line looks for all of them.
    const run = setUp(() => 1_000, ['team-a/head']);
    expect(await run.reconcileKey('team-a/head')).toEqual({ kind: 'requeueAfter', ms: 1_000 });
    expect(await run.reconcile()).toEqual({ kind: 'requeueAfter', ms: 60_000 });
    run.advance(1_000);
    expect(await run.reconcileKey('team-a/head')).toEqual({ kind: 'requeueAfter', ms: 1_000 });
    // Run early (another event about its object): it sleeps for what is left of its deferral.
    run.advance(4_000);
    expect(await run.reconcile()).toEqual({ kind: 'requeueAfter', ms: 55_000 });
    expect(run.lookups).toEqual([]);
    expect(run.woken).toEqual([]);
  });

  it('the next key takes over the looking when the head needs no lookup any more', async () => {
    const run = setUp(() => 1_000, ['team-a/head']);
    await run.reconcileKey('team-a/head');
    run.advance(5_000);
    expect(await run.reconcile()).toEqual({ kind: 'requeueAfter', ms: 60_000 });
    run.removeKey('team-a/head');
    expect(await run.reconcileKey('team-a/head')).toEqual({ kind: 'awaitChange' });
    expect(run.woken).toEqual([KEY]);
    expect(await run.reconcile()).toEqual({ kind: 'requeueAfter', ms: 1_000 });
  });

  it('an answer on spare budget wakes the two keys that have waited longest', async () => {
    // A sleeping key must not wait for its timer once the budget is spare: each answer to a
    // lookup that went on spare budget wakes two, so the lookups in flight can double while
    // the budget stays spare, instead of the line moving one round trip at a time.
    let spareInMs = 5_000;
    const run = setUp(() => spareInMs, ['team-a/first', 'team-a/second', 'team-a/third']);
    for (const key of ['team-a/first', 'team-a/second', 'team-a/third']) {
      expect((await run.reconcileKey(key)).kind).toBe('requeueAfter');
      run.advance(10);
    }
    expect(run.woken).toEqual([]);

    spareInMs = 0;
    expect(await run.reconcile()).toEqual({ kind: 'awaitChange' });
    expect(run.woken).toEqual(['team-a/first', 'team-a/second']);
    expect(await run.reconcileKey('team-a/first')).toEqual({ kind: 'awaitChange' });
    expect(run.woken.slice(2)).toEqual(['team-a/second', 'team-a/third']);
    expect(run.lookups).toEqual(['bot', 'bot']);
  });

  it('an answer does not wake a key whose own lookup is on its way', async () => {
    const run = setUp(() => 0, ['team-a/first', 'team-a/second']);
    let answerFirst: (value: { ok: true; value: undefined }) => void = () => undefined;
    run.answerWith(() => new Promise((resolve) => (answerFirst = resolve)));
    const first = run.reconcileKey('team-a/first');
    run.answerWith(() => Promise.resolve({ ok: true, value: { id: PROJECT, name: 'bot' } }));
    run.advance(10);
    // second's lookup goes and is answered while first's is still on its way.
    expect(await run.reconcileKey('team-a/second')).toEqual({ kind: 'awaitChange' });
    expect(run.woken).toEqual([]);
    answerFirst({ ok: true, value: undefined });
    expect(await first).toEqual({ kind: 'requeueAfter', ms: 30_000 });
  });

  it('a failed lookup keeps its place and wakes nobody: the head alone probes a failing API, at its backoff', async () => {
    let spareInMs = 0;
    const run = setUp(() => spareInMs, ['team-a/head']);
    run.answerWith(() =>
      Promise.resolve({
        ok: false,
        error: {
          kind: 'Transient',
          message: 'GET /api/v1/sessions: HTTP 503',
          status: 503,
          unclear: false,
          method: 'GET',
          route: '/api/v1/sessions',
          attempts: 1,
        },
      } as const),
    );
    expect((await run.reconcileKey('team-a/head')).kind).toBe('backoff');
    expect(run.woken).toEqual([]);
    spareInMs = 1_000;
    run.advance(10);
    // Still the head when it comes back from its backoff; the key behind it sleeps.
    expect(await run.reconcile()).toEqual({ kind: 'requeueAfter', ms: 60_000 });
    expect(await run.reconcileKey('team-a/head')).toEqual({ kind: 'requeueAfter', ms: 1_000 });
  });

  it('a lookup that goes because it waited the longest deferral hands the looking to the next key', async () => {
    const run = setUp(() => 5_000, ['team-a/other']);
    expect((await run.reconcile()).kind).toBe('requeueAfter');
    expect((await run.reconcileKey('team-a/other')).kind).toBe('requeueAfter');
    run.advance(60_000);
    expect(await run.reconcile()).toEqual({ kind: 'awaitChange' });
    expect(run.woken).toEqual(['team-a/other']);
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
