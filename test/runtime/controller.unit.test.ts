import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Controller } from '../../src/runtime/controller/controller.js';
import {
  awaitChange,
  backoff,
  failed,
  requeueAfter,
  requeueNow,
  type ReconcileResult,
} from '../../src/runtime/reconcile/result.js';
import { defaultControllerRateLimiter } from '../../src/runtime/workqueue/rate-limiter.js';
import { FakeClock, flush } from './support/fake-clock.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('Controller', () => {
  it('rejects a worker count that is not a positive integer', () => {
    expect(
      () =>
        new Controller({
          name: 'x',
          reconcile: () => Promise.resolve(awaitChange),
          maxConcurrentReconciles: 0,
        }),
    ).toThrow(/maxConcurrentReconciles must be an integer >= 1, got 0/);
  });

  it("serves keys namespace by namespace: one namespace's thousand keys do not go before another's one", async () => {
    const order: string[] = [];
    const gate = deferred();
    const controller = new Controller({
      name: 'tenants',
      clock: new FakeClock(),
      reconcile: async (key) => {
        order.push(key);
        await gate.promise;
        return awaitChange;
      },
    });
    controller.start();
    for (let i = 0; i < 1000; i += 1) controller.enqueue(`team-b/flood-${i}`);
    controller.enqueue('team-a/new');
    controller.enqueue('cluster-scoped');
    gate.resolve();
    for (let i = 0; i < 50 && order.length < 5; i += 1) await flush();
    // flood-0 went to the waiting worker as it was added; the rest waited in their namespaces' turns.
    expect(order.slice(0, 5)).toEqual([
      'team-b/flood-0',
      'team-b/flood-1',
      'team-a/new',
      'cluster-scoped',
      'team-b/flood-2',
    ]);
    await controller.stop();
  });

  it('runs at most N reconciles at once and never one key on two workers', async () => {
    const clock = new FakeClock();
    let active = 0;
    let maxActive = 0;
    const activeKeys = new Set<string>();
    let overlap = false;
    const gates: Array<() => void> = [];
    const controller = new Controller({
      name: 'bounded',
      clock,
      maxConcurrentReconciles: 3,
      reconcile: async (key) => {
        if (activeKeys.has(key)) overlap = true;
        activeKeys.add(key);
        active += 1;
        maxActive = Math.max(maxActive, active);
        const gate = deferred();
        gates.push(gate.resolve);
        await gate.promise;
        active -= 1;
        activeKeys.delete(key);
        return awaitChange;
      },
    });
    controller.start();
    for (let round = 0; round < 5; round += 1) {
      for (const key of ['a', 'b', 'c', 'd', 'e']) controller.enqueue(key);
      await flush();
      gates.splice(0).forEach((open) => open());
      await flush();
    }
    for (let i = 0; i < 10; i += 1) {
      gates.splice(0).forEach((open) => open());
      await flush();
    }
    expect(maxActive).toBe(3);
    expect(overlap).toBe(false);
    await controller.stop({ drainTimeoutMs: 1000 });
  });

  it('requeues errors with growing backoff, requeueAfter at its time, and forgets on success', async () => {
    const clock = new FakeClock();
    const calls: Array<{ key: string; at: number }> = [];
    const start = clock.now();
    const results = new Map<string, Array<ReconcileResult | 'throw'>>([
      ['fails', ['throw', failed(new Error('value error')), 'throw', awaitChange]],
      ['polls', [requeueAfter(30_000), awaitChange]],
    ]);
    const controller = new Controller({
      name: 'outcomes',
      clock,
      registry: new Registry(),
      rateLimiter: () => defaultControllerRateLimiter(clock, { random: () => 0, baseDelayMs: 100 }),
      reconcile: (key) => {
        calls.push({ key, at: clock.now() - start });
        const next = results.get(key)?.shift();
        if (next === 'throw') return Promise.reject(new Error('thrown'));
        return Promise.resolve(next ?? awaitChange);
      },
    });
    controller.start();
    controller.enqueue('fails');
    controller.enqueue('polls');
    await clock.advance(60_000);
    expect(calls.filter((c) => c.key === 'fails').map((c) => c.at)).toEqual([0, 100, 300, 700]);
    expect(calls.filter((c) => c.key === 'polls').map((c) => c.at)).toEqual([0, 30_000]);
    expect(controller.workQueue?.numRequeues('fails')).toBe(0);
    await controller.stop();
  });

  it('looks again at once, without backoff, when asked to requeue now (a write conflict)', async () => {
    const clock = new FakeClock();
    const calls: number[] = [];
    const start = clock.now();
    let n = 0;
    const controller = new Controller({
      name: 'conflicts',
      clock,
      registry: new Registry(),
      rateLimiter: () => defaultControllerRateLimiter(clock, { random: () => 0, baseDelayMs: 1_000 }),
      reconcile: () => {
        calls.push(clock.now() - start);
        n += 1;
        return Promise.resolve(n <= 3 ? requeueNow : awaitChange);
      },
    });
    controller.start();
    controller.enqueue('k');
    await clock.advance(10);
    expect(calls).toEqual([0, 0, 0, 0]);
    expect(controller.workQueue?.numRequeues('k')).toBe(0);
    await controller.stop();
  });

  it('publishes controller-runtime reconcile metrics', async () => {
    const clock = new FakeClock();
    const registry = new Registry();
    let n = 0;
    const controller = new Controller({
      name: 'metered',
      clock,
      registry,
      maxConcurrentReconciles: 2,
      rateLimiter: () => defaultControllerRateLimiter(clock, { random: () => 0 }),
      reconcile: () => {
        n += 1;
        if (n === 1) return Promise.reject(new Error('first fails'));
        if (n === 2) return Promise.resolve(backoff);
        if (n === 3) return Promise.resolve(requeueAfter(1));
        // A failure the reconciler handled as a value still counts as an error.
        if (n === 4) return Promise.resolve(failed({ message: 'handled', logged: true }));
        return Promise.resolve(awaitChange);
      },
    });
    controller.start();
    controller.enqueue('k');
    await clock.advance(5_000);
    const text = await registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_total{controller="metered",result="error"} 2');
    expect(text).toContain('controller_runtime_reconcile_total{controller="metered",result="requeue"} 1');
    expect(text).toContain(
      'controller_runtime_reconcile_total{controller="metered",result="requeue_after"} 1',
    );
    expect(text).toContain('controller_runtime_reconcile_total{controller="metered",result="success"} 1');
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="metered"} 2');
    expect(text).toContain('controller_runtime_reconcile_time_seconds_count{controller="metered"} 5');
    expect(text).toContain('controller_runtime_max_concurrent_reconciles{controller="metered"} 2');
    expect(text).toContain('controller_runtime_active_workers{controller="metered"} 0');
    await controller.stop();
  });

  it('stop drains in-flight reconciles; abortInFlight signals them at once', async () => {
    const clock = new FakeClock();
    const gate = deferred();
    let seenSignal: AbortSignal | undefined;
    const controller = new Controller({
      name: 'drain',
      clock,
      reconcile: async (_key, signal) => {
        seenSignal = signal;
        await gate.promise;
        return awaitChange;
      },
    });
    controller.start();
    controller.enqueue('a');
    await flush();
    let stopped: boolean | undefined;
    void controller.stop({ drainTimeoutMs: 5_000 }).then((d) => (stopped = d));
    await flush();
    expect(stopped).toBeUndefined();
    expect(seenSignal?.aborted).toBe(false);
    controller.enqueue('b');
    gate.resolve();
    await flush();
    expect(stopped).toBe(true);
    expect(controller.running).toBe(false);

    const hang = deferred();
    const second = new Controller({
      name: 'abort',
      clock,
      reconcile: async (_key, signal) => {
        seenSignal = signal;
        await hang.promise;
        return awaitChange;
      },
    });
    second.start();
    second.enqueue('a');
    await flush();
    void second.stop({ abortInFlight: true, drainTimeoutMs: 1_000 });
    await flush();
    expect(seenSignal?.aborted).toBe(true);
    hang.resolve();
  });
});
