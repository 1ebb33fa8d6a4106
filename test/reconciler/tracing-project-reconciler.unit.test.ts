// The tracing-project lookup spends only spare budget: while the key's buckets are under half
// full (a rollout is spending them) it waits in its connection's line without a call and
// without coming back on its own; the line's pump wakes the key that has waited longest once
// the budget is spare, or once that key has waited long enough.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { AgentDeploymentObject } from '../../src/reconcilers/agentdeployment/kube-port.js';
import type { SessionReader } from '../../src/reconcilers/deletion/ports.js';
import { TracingProjectReconciler } from '../../src/reconcilers/tracingproject/reconciler.js';
import { PUMP_MIN_WAIT_MS, WAKE_TIMEOUT_MS } from '../../src/reconcilers/tracingproject/lookup-line.js';
import type { Result } from '../../src/controlplane/client/errors.js';
import { FakeClock } from '../runtime/support/fake-clock.js';

const PROJECT = '6f1c2a4e-0000-4000-8000-0000000000aa';
const KEY = 'team-a/bot';
const MAX_DEFER_MS = 60_000;
const signal = new AbortController().signal;

function owned(name: string): AgentDeploymentObject {
  const id = '6f1c2a4e-0000-4000-8000-000000000001';
  return {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name, namespace: 'team-a', uid: `uid-${name}`, generation: 1, resourceVersion: '1' },
    spec: {},
    status: { ownership: { uid: `uid-${name}`, deploymentId: id }, deploymentId: id },
  } as unknown as AgentDeploymentObject;
}

type Lookup = Result<{ id: string; name: string } | undefined>;

function setUp(keys: string[] = [KEY]) {
  const clock = new FakeClock();
  const stopping = new AbortController();
  const budget = { msUntilSpare: 0 };
  const lookups: string[] = [];
  const written: unknown[] = [];
  const woken: string[] = [];
  const connectionOf = new Map<string, string>();
  const unusable = new Set<string>();
  let answer = (name: string): Lookup => ({ ok: true, value: { id: PROJECT, name } });
  const objects = new Map(keys.map((key) => [key, owned(key.split('/')[1] ?? key)]));
  const client: SessionReader = {
    msUntilSessionLookupSpare: (share, quietMs) => {
      expect([share, quietMs]).toEqual([0.5, 2_000]);
      return budget.msUntilSpare;
    },
    findSessionByName: (name) => {
      lookups.push(name);
      return Promise.resolve(answer(name));
    },
    readSession: () => Promise.resolve({ ok: true, value: undefined }),
  };
  const reconciler = new TracingProjectReconciler({
    objects: { get: (key) => objects.get(key) },
    kube: {
      patchStatus: (object, status) => {
        written.push(status);
        return Promise.resolve({ ok: true, value: object });
      },
    },
    sessionsFor: (object) => {
      const key = `team-a/${object.metadata.name}`;
      if (unusable.has(key)) return { ok: false, reason: 'ConnectionNotReady', message: 'not ready' };
      return { ok: true, client, label: connectionOf.get(key) ?? 'default' };
    },
    recheckMs: 30_000,
    spareShare: 0.5,
    spareQuietMs: 2_000,
    maxDeferMs: MAX_DEFER_MS,
    logger: pino({ level: 'silent' }),
    clock,
    stopping: stopping.signal,
    wake: (key) => woken.push(key),
  });
  return {
    clock,
    budget,
    reconcile: (key = KEY) => reconciler.reconcile(key, signal),
    reconcileWith: (key: string, passSignal: AbortSignal) => reconciler.reconcile(key, passSignal),
    /** `keys` wait in line, in this order, for a budget spare in `ms`. */
    async waitInLine(keys: string[], ms: number): Promise<void> {
      budget.msUntilSpare = ms;
      for (const key of keys) await reconciler.reconcile(key, signal);
    },
    /** Runs the passes of every key woken since the last call, in order. */
    async runWoken(): Promise<void> {
      for (const key of woken.splice(0)) await reconciler.reconcile(key, signal);
    },
    woken,
    lookups,
    written,
    remove: (key: string) => objects.delete(key),
    moveToConnection: (key: string, label: string) => connectionOf.set(key, label),
    makeUnusable: (key: string) => unusable.add(key),
    answerWith: (next: (name: string) => Lookup) => (answer = next),
    stop: () => stopping.abort(),
  };
}

const AWAIT_CHANGE = { kind: 'awaitChange' };

describe('the tracing-project lookup on a busy key', () => {
  it('looks up at once when the key has spare budget', async () => {
    const run = setUp();
    expect(await run.reconcile()).toEqual(AWAIT_CHANGE);
    expect(run.lookups).toEqual(['bot']);
    expect(run.written).toEqual([expect.objectContaining({ tracingProject: { name: 'bot', id: PROJECT } })]);
  });

  it('waits without a call and without a requeue, and is woken once the budget is spare', async () => {
    const run = setUp();
    run.budget.msUntilSpare = 4_200;
    expect(await run.reconcile()).toEqual(AWAIT_CHANGE);
    expect(run.lookups).toEqual([]);
    await run.clock.advance(4_199);
    expect(run.woken).toEqual([]);
    run.budget.msUntilSpare = 0;
    await run.clock.advance(1);
    expect(run.woken).toEqual([KEY]);
    await run.runWoken();
    expect(run.lookups).toEqual(['bot']);
  });

  it('a thousand waiting keys cost one pass each and one timer while the budget stays busy', async () => {
    // A new operator over a fleet: every adopted object needs a lookup on one busy key. Keys
    // that came back on their own to look at the budget made tens of thousands of passes.
    const keys = Array.from({ length: 1_000 }, (_, i) => `team-a/bot-${i}`);
    const run = setUp(keys);
    run.budget.msUntilSpare = 50;
    for (const key of keys) expect(await run.reconcile(key)).toEqual(AWAIT_CHANGE);
    await run.clock.advance(MAX_DEFER_MS - 1);
    expect(run.woken).toEqual([]);
    expect(run.clock.pendingTimers).toBe(1);
    expect(run.lookups).toEqual([]);
  });

  it('looks at the budget at its pace, no sooner than every 10 ms', async () => {
    const run = setUp();
    run.budget.msUntilSpare = 3;
    await run.reconcile();
    run.budget.msUntilSpare = 0;
    await run.clock.advance(PUMP_MIN_WAIT_MS - 1);
    expect(run.woken).toEqual([]);
    await run.clock.advance(1);
    expect(run.woken).toEqual([KEY]);
  });

  it('wakes the key that has waited longest, and the next only once that one has gone', async () => {
    const run = setUp(['team-a/first', 'team-a/second', 'team-a/third']);
    await run.waitInLine(['team-a/first', 'team-a/second', 'team-a/third'], 5_000);
    run.budget.msUntilSpare = 0;
    await run.clock.advance(5_000);
    // Spare now, but one woken key at a time: the budget may serve only one.
    await run.clock.advance(WAKE_TIMEOUT_MS - 1);
    expect(run.woken).toEqual(['team-a/first']);
    await run.runWoken();
    await run.clock.advance(0);
    expect(run.woken).toEqual(['team-a/second']);
    await run.runWoken();
    await run.clock.advance(0);
    await run.runWoken();
    expect(run.lookups).toEqual(['first', 'second', 'third']);
    await run.clock.advance(MAX_DEFER_MS);
    expect(run.woken).toEqual([]);
    expect(run.clock.pendingTimers).toBe(0);
  });

  it('a woken key that finds the budget spent again keeps its place, and the pump follows the budget', async () => {
    const run = setUp(['team-a/first', 'team-a/second']);
    await run.waitInLine(['team-a/first', 'team-a/second'], 5_000);
    run.budget.msUntilSpare = 0;
    await run.clock.advance(5_000);
    expect(run.woken).toEqual(['team-a/first']);
    run.budget.msUntilSpare = 30;
    await run.runWoken();
    expect(run.lookups).toEqual([]);
    run.budget.msUntilSpare = 0;
    await run.clock.advance(30);
    expect(run.woken).toEqual(['team-a/first']);
  });

  it('wakes the head when it has waited the longest deferral, though the key is never spare', async () => {
    const run = setUp(['team-a/first', 'team-a/second']);
    run.budget.msUntilSpare = 10 * MAX_DEFER_MS;
    await run.reconcile('team-a/first');
    await run.clock.advance(1_000);
    await run.reconcile('team-a/second');
    await run.clock.advance(MAX_DEFER_MS - 1_001);
    expect(run.woken).toEqual([]);
    await run.clock.advance(1);
    expect(run.woken).toEqual(['team-a/first']);
    await run.runWoken();
    expect(run.lookups).toEqual(['first']);
    // The second has waited 59 s: it goes at its own minute.
    await run.clock.advance(999);
    expect(run.woken).toEqual([]);
    await run.clock.advance(1);
    expect(run.woken).toEqual(['team-a/second']);
  });

  it('pauses the line after a failed lookup, one second and doubling, until one succeeds', async () => {
    // Handing the turn on after a failure would run the line through a failing API at the
    // budget's pace.
    const keys = ['team-a/a', 'team-a/b', 'team-a/c', 'team-a/d'];
    const run = setUp(keys);
    run.budget.msUntilSpare = 100;
    for (const key of keys) await run.reconcile(key);
    const down = {
      kind: 'Transient',
      message: 'GET /api/v1/sessions: 503',
      method: 'GET',
      route: '/api/v1/sessions',
      attempts: 3,
      unclear: false,
    } as const;
    run.answerWith(() => ({ ok: false, error: down }));
    run.budget.msUntilSpare = 0;
    await run.clock.advance(100);
    expect(run.woken).toEqual(['team-a/a']);
    expect((await run.reconcile('team-a/a')).kind).toBe('backoff');
    run.woken.length = 0;
    await run.clock.advance(999);
    expect(run.woken).toEqual([]);
    await run.clock.advance(1);
    expect(run.woken).toEqual(['team-a/b']);
    await run.runWoken();
    await run.clock.advance(1_999);
    expect(run.woken).toEqual([]);
    await run.clock.advance(1);
    expect(run.woken).toEqual(['team-a/c']);
    run.answerWith((name) => ({ ok: true, value: { id: PROJECT, name } }));
    await run.runWoken();
    await run.clock.advance(0);
    expect(run.woken).toEqual(['team-a/d']);
  });

  it('does not pause the line for a lookup abandoned because its object left', async () => {
    // An aborted pass (the object was deleted or moved to another shard) says nothing about
    // the API: the next key must not wait a second for it.
    const keys = ['team-a/gone', 'team-a/next'];
    const run = setUp(keys);
    await run.waitInLine(keys, 100);
    const leaving = new AbortController();
    run.answerWith(() => {
      leaving.abort();
      return {
        ok: false,
        error: {
          kind: 'Transient',
          message: 'aborted',
          method: 'GET',
          route: '/api/v1/sessions',
          attempts: 1,
          unclear: false,
        },
      };
    });
    run.budget.msUntilSpare = 0;
    await run.clock.advance(100);
    expect(run.woken).toEqual(['team-a/gone']);
    run.woken.length = 0;
    await run.reconcileWith('team-a/gone', leaving.signal);
    await run.clock.advance(0);
    expect(run.woken).toEqual(['team-a/next']);
  });

  it('wakes the head again when its pass never came (a lost wake)', async () => {
    const run = setUp();
    run.budget.msUntilSpare = 100;
    await run.reconcile();
    run.budget.msUntilSpare = 0;
    await run.clock.advance(100);
    expect(run.woken).toEqual([KEY]);
    await run.clock.advance(WAKE_TIMEOUT_MS - 1);
    expect(run.woken).toEqual([KEY]);
    await run.clock.advance(1);
    expect(run.woken).toEqual([KEY, KEY]);
  });

  it('the next key is woken when the head needs no lookup any more', async () => {
    const run = setUp(['team-a/head', 'team-a/next']);
    await run.waitInLine(['team-a/head', 'team-a/next'], 5_000);
    run.budget.msUntilSpare = 0;
    await run.clock.advance(5_000);
    expect(run.woken).toEqual(['team-a/head']);
    run.remove('team-a/head');
    await run.runWoken();
    await run.clock.advance(0);
    expect(run.woken).toEqual(['team-a/next']);
    expect(run.lookups).toEqual([]);
  });

  it('a key whose object changed connection waits in its new connection line only', async () => {
    const run = setUp(['team-a/mover', 'team-a/stays']);
    run.budget.msUntilSpare = 5_000;
    await run.reconcile('team-a/mover');
    await run.reconcile('team-a/stays');
    run.moveToConnection('team-a/mover', 'eu');
    await run.reconcile('team-a/mover');
    // Two lines, two pumps; the default line's head is now `stays`.
    await run.clock.advance(0);
    expect(run.clock.pendingTimers).toBe(2);
    run.budget.msUntilSpare = 0;
    await run.clock.advance(5_000);
    expect(run.woken.sort()).toEqual(['team-a/mover', 'team-a/stays']);
  });

  it('a connection that cannot be used leaves the line and looks again after the recheck period', async () => {
    const run = setUp();
    run.budget.msUntilSpare = 5_000;
    await run.reconcile();
    expect(run.clock.pendingTimers).toBe(1);
    run.makeUnusable(KEY);
    expect(await run.reconcile()).toEqual({ kind: 'requeueAfter', ms: 30_000 });
    expect(run.clock.pendingTimers).toBe(0);
    run.budget.msUntilSpare = 0;
    await run.clock.advance(MAX_DEFER_MS);
    expect(run.woken).toEqual([]);
  });

  it('forgets a wait when the object goes, so a new one waits afresh', async () => {
    const run = setUp();
    run.budget.msUntilSpare = 5 * MAX_DEFER_MS;
    expect(await run.reconcile()).toEqual(AWAIT_CHANGE);
    await run.clock.advance(59_000);
    run.remove(KEY);
    expect(await run.reconcile()).toEqual(AWAIT_CHANGE);
    await run.clock.advance(2 * MAX_DEFER_MS);
    expect(run.woken).toEqual([]);
    expect(run.clock.pendingTimers).toBe(0);
  });

  it('stops every pump when the operator stops', async () => {
    const run = setUp(['team-a/a', 'team-a/b']);
    run.moveToConnection('team-a/b', 'eu');
    run.budget.msUntilSpare = 5_000;
    await run.reconcile('team-a/a');
    await run.reconcile('team-a/b');
    expect(run.clock.pendingTimers).toBe(2);
    run.stop();
    expect(run.clock.pendingTimers).toBe(0);
    run.budget.msUntilSpare = 0;
    await run.clock.advance(10 * MAX_DEFER_MS);
    expect(run.woken).toEqual([]);
  });
});
