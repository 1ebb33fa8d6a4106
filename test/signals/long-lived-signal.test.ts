// A controller's signal lives as long as the controller, and every pass of its workers waits
// and calls with it: the rate budget's queue, the sleeps of the runtime and of the control-plane
// client, the HTTP exchanges. Each must follow it through one shared listener, and let go when
// it is done; a listener each passed Node's limit of 10 and printed a MaxListenersExceededWarning
// in every operator that ran the tracing-project lookups (found in bench:steady's log).
import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  sleep as controlPlaneSleep,
  systemClock as controlPlaneClock,
} from '../../src/controlplane/budget/clock.js';
import { RateBudget, type BudgetRequest } from '../../src/controlplane/budget/rate-budget.js';
import { HttpTransport } from '../../src/controlplane/client/http-transport.js';
import { sleep as runtimeSleep } from '../../src/runtime/clock.js';
import { FakeClock } from '../controlplane-client/support/fake-clock.js';
import { FakeClock as RuntimeFakeClock } from '../runtime/support/fake-clock.js';

const FOLLOWERS = 16;
const request: BudgetRequest = { method: 'GET', path: '/v2/deployments', credentialFingerprint: 'fp' };

const listeners = (signal: AbortSignal): number => getEventListeners(signal, 'abort').length;

describe('waits and calls that follow one long-lived signal', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  it('the rate budget queues many waiters on one listener, and lets go as they are served', async () => {
    const clock = new FakeClock();
    const budget = new RateBudget({ overrides: { default: { count: 1, windowSeconds: 1 } }, clock });
    await budget.acquire(request);
    const controller = new AbortController();
    const waits = Array.from({ length: FOLLOWERS }, () => budget.acquire(request, controller.signal));
    expect(listeners(controller.signal)).toBe(1);
    for (let served = 0; served < FOLLOWERS; served += 1) clock.advance(1_100);
    await Promise.all(waits);
    expect(listeners(controller.signal)).toBe(0);

    // The last refill's token taken, so that every waiter below has to queue.
    await budget.acquire(request);
    const aborting = new AbortController();
    const aborted = Array.from({ length: FOLLOWERS }, () => budget.acquire(request, aborting.signal));
    aborting.abort();
    const outcomes = await Promise.allSettled(aborted);
    expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
  });

  it("the control-plane client's sleeps share one listener, and an abort ends every one", async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const done = Array.from({ length: FOLLOWERS }, () => controlPlaneSleep(clock, 1_000, controller.signal));
    expect(listeners(controller.signal)).toBe(1);
    clock.advance(1_000);
    await Promise.all(done);
    expect(listeners(controller.signal)).toBe(0);

    const early = Array.from({ length: FOLLOWERS }, () => controlPlaneSleep(clock, 1_000, controller.signal));
    controller.abort();
    const outcomes = await Promise.allSettled(early);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(FOLLOWERS).fill('rejected'));
  });

  it("the runtime's sleeps share one listener, and an abort ends every one at once", async () => {
    const clock = new RuntimeFakeClock();
    const controller = new AbortController();
    const done = Array.from({ length: FOLLOWERS }, () => runtimeSleep(clock, 1_000, controller.signal));
    expect(listeners(controller.signal)).toBe(1);
    await clock.advance(1_000);
    await Promise.all(done);
    expect(listeners(controller.signal)).toBe(0);

    const early = Array.from({ length: FOLLOWERS }, () => runtimeSleep(clock, 60_000, controller.signal));
    controller.abort();
    await Promise.all(early);
    expect(clock.pendingTimers).toBe(0);
  });

  it('HTTP exchanges in flight share one listener on their caller’s signal', async () => {
    const held: Array<() => void> = [];
    server = createServer((_request, response) => {
      held.push(() => response.end('{}'));
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as AddressInfo;
    const transport = new HttpTransport(`http://127.0.0.1:${port}`, controlPlaneClock);
    const controller = new AbortController();
    const sends = Array.from({ length: FOLLOWERS }, () =>
      transport.send({
        method: 'GET',
        path: '/v2/deployments',
        headers: {},
        deadlineMs: 10_000,
        signal: controller.signal,
      }),
    );
    await expect.poll(() => held.length).toBe(FOLLOWERS);
    expect(listeners(controller.signal)).toBe(1);
    for (const answer of held) answer();
    const results = await Promise.all(sends);
    expect(results.map((result) => result.type)).toEqual(Array(FOLLOWERS).fill('response'));
    expect(listeners(controller.signal)).toBe(0);
    await transport.close();
  });
});
