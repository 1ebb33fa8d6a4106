import { describe, expect, it } from 'vitest';
import type { Deployment } from '../../src/controlplane/models/index.js';
import {
  FleetPoller,
  MAX_IDS_PER_LIST,
} from '../../src/reconcilers/agentdeployment/observation/fleet-poller.js';
import { ObservationCache } from '../../src/reconcilers/agentdeployment/observation/observation-cache.js';
import type { Outcome } from '../../src/reconcilers/agentdeployment/ports.js';

function deployment(id: string, active: string | null = null): Deployment {
  return {
    name: id,
    source: 'external_container',
    source_config: {},
    source_revision_config: {},
    secrets: [],
    id,
    tenant_id: '00000000-0000-4000-8000-000000000000',
    created_at: '2026-11-21T00:00:00Z',
    updated_at: '2026-11-21T00:00:00Z',
    status: 'READY',
    latest_revision_id: 'r1',
    active_revision_id: active,
  };
}

function setup(
  options: {
    exists?: (id: string) => boolean;
    active?: () => string | null;
    /** The budget's free share the port reports; absent: not reported (treated as short). */
    budgetHeadroom?: () => number;
    coalesce?: () => boolean;
    earlyLookHeadroom?: () => number;
  } = {},
) {
  let now = 0;
  const calls: string[][] = [];
  const enqueued: string[] = [];
  const cache = new ObservationCache();
  const poller = new FleetPoller({
    cache,
    now: () => now,
    random: () => 0.5,
    inflightPollMs: 1_000,
    resyncPeriodMs: 60_000,
    maxConcurrentLists: 3,
    enqueue: (key) => enqueued.push(key),
    ...(options.coalesce === undefined ? {} : { coalesce: options.coalesce }),
    ...(options.earlyLookHeadroom === undefined ? {} : { earlyLookHeadroom: options.earlyLookHeadroom }),
    controlPlane: {
      ...(options.budgetHeadroom === undefined ? {} : { budgetHeadroom: options.budgetHeadroom }),
      listDeploymentsByIds: async (ids): Promise<Outcome<Deployment[]>> => {
        calls.push([...ids]);
        const exists = options.exists ?? (() => true);
        return {
          ok: true,
          value: ids.filter(exists).map((id) => deployment(id, options.active?.() ?? null)),
        };
      },
    },
  });
  return { poller, cache, calls, enqueued, advance: (ms: number) => (now += ms) };
}

describe('FleetPoller', () => {
  it('observes 250 in-flight deployments with 3 list calls of at most 100 ids', async () => {
    const { poller, calls, advance } = setup();
    for (let i = 0; i < 250; i += 1) poller.track(`d${i}`, `ns/o${i}`, 'inflight');
    await poller.tick();
    expect(calls).toHaveLength(0); // nothing is due before the poll interval
    advance(1_000);
    await poller.tick();
    expect(calls.flat()).toHaveLength(250);
    expect(calls).toHaveLength(3);
  });

  it('batches due ids, enqueues only keys whose deployment changed, and waits for the next round', async () => {
    let active: string | null = null;
    const { poller, calls, enqueued, advance } = setup({ active: () => active });
    for (let i = 0; i < 250; i += 1) poller.track(`d${i}`, `ns/o${i}`, 'inflight');
    advance(1_000);
    await poller.tick();
    expect(calls.map((ids) => ids.length)).toEqual([MAX_IDS_PER_LIST, MAX_IDS_PER_LIST, 50]);
    expect(enqueued).toHaveLength(250); // first observation of each: a change
    enqueued.length = 0;
    advance(1_000);
    await poller.tick();
    expect(enqueued).toHaveLength(0); // nothing changed
    active = 'r1';
    advance(1_000);
    await poller.tick();
    expect(enqueued).toHaveLength(250); // every revision became active
  });

  it('fetches a wanted id at the next tick and enqueues its key even when unchanged', async () => {
    const { poller, calls, enqueued } = setup();
    poller.want('d1', 'ns/a');
    await poller.tick();
    expect(calls).toEqual([['d1']]);
    expect(enqueued).toEqual(['ns/a']);
  });

  it('lists a rollout in flight before the ids that passes over settled objects want, and those before resyncs', async () => {
    // A new leader looks at every settled object once and each pass wants its deployment: 500
    // low wants. A rollout started meanwhile must not wait for all of them to be listed.
    const { poller, calls, advance } = setup();
    for (let i = 0; i < 200; i += 1) poller.track(`steady${i}`, `ns/s${i}`, 'steady');
    advance(60_000);
    for (let i = 0; i < 500; i += 1) poller.want(`settled${i}`, `ns/o${i}`, 'low');
    poller.track('rollout', 'ns/new', 'inflight');
    poller.want('edited', 'ns/edited');
    // The low want of an id also wanted normally stays normal.
    poller.want('both', 'ns/both');
    poller.want('both', 'ns/both', 'low');
    // A low want stays low when its pass tracks the id as settled.
    poller.track('settled0', 'ns/o0', 'steady');
    advance(1_000);
    await poller.tick();
    const first = calls.flat();
    expect(first.slice(0, 3)).toEqual(['edited', 'both', 'rollout']);
    expect(first.slice(3, 300)).toEqual(Array.from({ length: 297 }, (_, i) => `settled${i}`));
    advance(200);
    await poller.tick();
    const second = calls.slice(3).flat();
    expect(second.slice(0, 203)).toEqual(Array.from({ length: 203 }, (_, i) => `settled${297 + i}`));
    expect(second.slice(203, 300)).toEqual(Array.from({ length: 97 }, (_, i) => `steady${i}`));
  });

  it('estimates how long a want waits for its round from the wanted ids ahead of it', async () => {
    // A new leader's 100,000 first looks each want their deployment: the pass that wants one
    // must not come back every 4 s while the poller needs minutes to list them all.
    const { poller, advance } = setup();
    expect(poller.wantWaitEstimateMs()).toBe(0);
    for (let i = 0; i < 1000; i += 1) poller.want(`d${i}`, `ns/o${i}`, 'low');
    // Counted at the next round: 1,000 wanted, 3 lists of 100 a round, a 200 ms tick.
    advance(200);
    await poller.tick();
    // 700 still wanted after this round: 3 more rounds.
    expect(poller.wantWaitEstimateMs()).toBe(3 * 200);
    for (let round = 0; round < 3; round += 1) {
      advance(200);
      await poller.tick();
    }
    expect(poller.wantWaitEstimateMs()).toBe(0);
  });

  it('marks ids a list did not return as missing, so that a GET confirms', async () => {
    const { poller, cache } = setup({ exists: () => false });
    poller.want('gone', 'ns/a');
    await poller.tick();
    expect(cache.get('gone')?.kind).toBe('missing');
  });

  it('resyncs settled deployments once per period, enqueueing their keys', async () => {
    const { poller, calls, enqueued, advance } = setup();
    poller.track('d1', 'ns/a', 'steady');
    advance(59_000);
    await poller.tick();
    expect(calls).toHaveLength(0);
    advance(1_000);
    await poller.tick();
    // Due, but alone: it waits a quarter interval for others to share its list call.
    expect(calls).toHaveLength(0);
    advance(250);
    await poller.tick();
    expect(calls).toEqual([['d1']]);
    expect(enqueued).toEqual(['ns/a']);
  });

  it('forgets everything a deleted object owned', async () => {
    const { poller, calls, advance } = setup();
    poller.track('d1', 'ns/a', 'inflight');
    poller.track('d2', 'ns/b', 'inflight');
    poller.untrackKey('ns/a');
    advance(1_250);
    await poller.tick();
    expect(calls).toEqual([['d2']]);
  });

  it('counts each mode and finds what a key owns as entries move between modes and keys', async () => {
    const { poller, calls, advance } = setup();
    poller.track('d1', 'ns/a', 'inflight');
    poller.track('d2', 'ns/a', 'inflight');
    poller.track('d3', 'ns/b', 'follow');
    poller.want('d4', 'ns/c');
    expect([poller.inflightCount, poller.followedCount, poller.trackedCount]).toEqual([3, 1, 4]);
    poller.track('d1', 'ns/a', 'steady');
    poller.track('d3', 'ns/b', 'inflight');
    expect([poller.inflightCount, poller.followedCount, poller.trackedCount]).toEqual([3, 0, 4]);
    // d2 is now wanted by another key: the first key's departure must not take it along.
    poller.want('d2', 'ns/c');
    poller.untrackKey('ns/a');
    expect([poller.inflightCount, poller.followedCount, poller.trackedCount]).toEqual([3, 0, 3]);
    poller.untrack('d3');
    poller.untrack('d3');
    expect([poller.inflightCount, poller.trackedCount]).toEqual([2, 2]);
    poller.untrackKey('ns/c');
    expect([poller.inflightCount, poller.trackedCount]).toEqual([0, 0]);
    advance(60_000);
    await poller.tick();
    expect(calls).toEqual([]);
  });

  it('not coalescing (a lane alone), polls no in-flight id early: it would wait a whole interval for its next look', async () => {
    const { poller, calls, advance } = setup({ budgetHeadroom: () => 0, coalesce: () => false });
    poller.track('d1', 'ns/a', 'inflight');
    advance(600);
    poller.track('d2', 'ns/b', 'inflight');
    advance(400);
    await poller.tick();
    expect(calls).toEqual([['d1']]);
  });

  it('with budget to spare, polls a due id at once: calls are cheap then and news comes sooner', async () => {
    const { poller, calls, advance } = setup({ budgetHeadroom: () => 1 });
    poller.track('d1', 'ns/a', 'inflight');
    advance(1_000);
    await poller.tick();
    expect(calls).toEqual([['d1']]);
  });

  it('on a short budget, coalesces in-flight ids that come due one by one into few list calls, none observed late by more than a quarter interval', async () => {
    const { poller, calls, advance } = setup(); // poll interval 1 s; no headroom reported: short
    const trackedAt = new Map<string, number>();
    const polledAt = new Map<string, number[]>();
    let now = 0;
    // 40 creates spread over 2 s (one every 50 ms, as a saturated budget spaces them), then
    // 10 s of 200 ms ticks.
    for (let step = 0; step < 60; step += 1) {
      if (step < 40) {
        poller.track(`d${step}`, `ns/o${step}`, 'inflight');
        trackedAt.set(`d${step}`, now);
      }
      const before = calls.length;
      if (step % 4 === 0) await poller.tick();
      for (const ids of calls.slice(before))
        for (const id of ids) polledAt.set(id, [...(polledAt.get(id) ?? []), now]);
      advance(50);
      now += 50;
    }
    for (let tick = 0; tick < 35; tick += 1) {
      const before = calls.length;
      await poller.tick();
      for (const ids of calls.slice(before))
        for (const id of ids) polledAt.set(id, [...(polledAt.get(id) ?? []), now]);
      advance(200);
      now += 200;
    }
    // Each id first observed no later than its interval plus a quarter (and a tick).
    for (const [id, at] of trackedAt)
      expect(polledAt.get(id)?.[0]).toBeLessThanOrEqual(at + 1_000 + 250 + 200);
    // A round per tick with any id due would be about 50 calls here.
    expect(calls.length).toBeLessThanOrEqual(20);
  });
});

describe('FleetPoller early looks at a new revision', () => {
  // The setup's poll interval is 1 s: early looks at 250, 500 and 750 ms, then every second.
  async function looksAt(
    times: number[],
    options: Parameters<typeof setup>[0],
    act: (poller: FleetPoller, at: number) => void = () => {},
  ): Promise<number[]> {
    const { poller, calls, advance } = setup(options);
    poller.track('d1', 'ns/a', 'inflight');
    const looks: number[] = [];
    let now = 0;
    for (const at of times) {
      advance(at - now);
      now = at;
      act(poller, at);
      const before = calls.length;
      await poller.tick();
      if (calls.length > before) looks.push(at);
    }
    return looks;
  }
  const TICKS = Array.from({ length: 16 }, (_, i) => (i + 1) * 200 - 150); // 50, 250, ... 3,050 ms

  it('on spare budget, looks at a quarter, half and three quarters of the interval, and keeps the interval after', async () => {
    const looks = await looksAt(TICKS, { budgetHeadroom: () => 1, earlyLookHeadroom: () => 1 });
    expect(looks).toEqual([250, 650, 850, 1_050, 2_050, 3_050]);
  });

  it('makes none while the budget has nothing spare for them: the first look comes at the interval', async () => {
    const looks = await looksAt(TICKS, { budgetHeadroom: () => 1, earlyLookHeadroom: () => 0 });
    expect(looks).toEqual([1_050, 2_050, 3_050]);
  });

  it('makes none without the lane saying so (no early-look reading)', async () => {
    const looks = await looksAt(TICKS, { budgetHeadroom: () => 1 });
    expect(looks).toEqual([1_050, 2_050, 3_050]);
  });

  it('looks as soon as the budget is spare within the early window, and still at the later shares', async () => {
    // The last creates of a wave: the budget is spare only some time after them; a build that
    // ends just after that first look is seen at the next share, not at the interval.
    let spare = false;
    const looks = await looksAt(
      TICKS,
      { budgetHeadroom: () => 1, earlyLookHeadroom: () => (spare ? 1 : 0) },
      (_, at) => {
        spare = at >= 450;
      },
    );
    expect(looks).toEqual([450, 650, 850, 1_050, 2_050, 3_050]);
  });

  it('makes each early look once, however late the first went', async () => {
    let spare = false;
    const looks = await looksAt(
      TICKS,
      { budgetHeadroom: () => 1, earlyLookHeadroom: () => (spare ? 1 : 0) },
      (_, at) => {
        spare = at >= 650;
      },
    );
    expect(looks).toEqual([650, 850, 1_050, 2_050, 3_050]);
  });

  it('on a short budget with no early look allowed, still lets in-flight ids ride along in a coalesced round', async () => {
    // Interval 1 s: d1 due at 1,000 ms, d2 (tracked 400 ms later) within half an interval of it.
    const { poller, calls, advance } = setup({ budgetHeadroom: () => 0, earlyLookHeadroom: () => 0 });
    poller.track('d1', 'ns/a', 'inflight');
    advance(400);
    poller.track('d2', 'ns/b', 'inflight');
    advance(850); // d1 a quarter interval late; d2's early looks (500 and 650 ms) not allowed
    await poller.tick();
    expect(calls).toEqual([['d1', 'd2']]);
  });

  it('goes at once with only early looks due, even on a budget short for coalesced rounds', async () => {
    const looks = await looksAt(TICKS.slice(0, 5), { budgetHeadroom: () => 0, earlyLookHeadroom: () => 1 });
    expect(looks).toEqual([250, 650, 850]);
  });

  it('lists every id whose early look is due in one call, and wakes only keys whose deployment changed', async () => {
    let active: string | null = null;
    const { poller, cache, calls, enqueued, advance } = setup({
      active: () => active,
      budgetHeadroom: () => 1,
      earlyLookHeadroom: () => 1,
    });
    for (let i = 0; i < 150; i += 1) {
      // As a create does: its answer is the first observation.
      cache.recordPresent(deployment(`d${i}`), 0);
      poller.track(`d${i}`, `ns/o${i}`, 'inflight');
    }
    advance(250);
    await poller.tick();
    expect(calls.map((ids) => ids.length)).toEqual([100, 50]);
    expect(enqueued).toEqual([]);
    active = 'r1';
    advance(250);
    await poller.tick();
    expect(enqueued).toHaveLength(150);
  });

  it('gives a settled deployment none, and a new revision of it (tracked in flight again) its early looks', async () => {
    const { poller, calls, advance } = setup({ budgetHeadroom: () => 1, earlyLookHeadroom: () => 1 });
    poller.track('d1', 'ns/a', 'steady');
    advance(500);
    await poller.tick();
    expect(calls).toEqual([]);
    poller.track('d1', 'ns/a', 'inflight');
    advance(250);
    await poller.tick();
    advance(250);
    await poller.tick();
    expect(calls).toEqual([['d1'], ['d1']]);
  });
});

describe('FleetPoller between rounds', () => {
  // A tick with nothing due returns without looking at each tracked id again (it remembers the
  // earliest due time): whatever brings an id's turn forward must still be served on time.
  it('serves a want, an id switched to in-flight and a new id after quiet ticks', async () => {
    const { poller, calls, advance } = setup({ budgetHeadroom: () => 1 });
    for (let i = 0; i < 300; i += 1) poller.track(`s${i}`, `ns/s${i}`, 'steady');
    for (let i = 0; i < 20; i += 1) {
      advance(200);
      await poller.tick();
    }
    expect(calls).toEqual([]);
    poller.want('s7', 'ns/s7');
    await poller.tick();
    expect(calls.map((ids) => ids[0])).toEqual(['s7']);
    calls.length = 0;

    poller.track('s9', 'ns/s9', 'inflight');
    poller.track('new', 'ns/new', 'inflight');
    advance(800);
    await poller.tick();
    expect(calls).toEqual([]);
    advance(200);
    await poller.tick();
    expect(
      calls
        .flat()
        .filter((id) => id === 's9' || id === 'new')
        .sort(),
    ).toEqual(['new', 's9']);
  });

  /** A poller over 50 settled ids, whose lists `answer` gives; `clock.now` is its time. */
  function pollerListing(
    answer: (ids: readonly string[], signal: AbortSignal) => Promise<Outcome<Deployment[]>>,
  ) {
    const clock = { now: 0 };
    const calls: Array<{ at: number; ids: string[] }> = [];
    const poller = new FleetPoller({
      cache: new ObservationCache(),
      now: () => clock.now,
      random: () => 0.5,
      inflightPollMs: 1_000,
      resyncPeriodMs: 60_000,
      backoff: { initialMs: 1_000, maxMs: 1_000 },
      enqueue: () => undefined,
      controlPlane: {
        budgetHeadroom: () => 1,
        listDeploymentsByIds: (ids, signal) => {
          calls.push({ at: clock.now, ids: [...ids] });
          return answer(ids, signal);
        },
      },
    });
    for (let i = 0; i < 50; i += 1) poller.track(`s${i}`, `ns/s${i}`, 'steady');
    return { poller, calls, clock };
  }
  const found = (ids: readonly string[]): Outcome<Deployment[]> => ({
    ok: true,
    value: ids.map((id) => deployment(id)),
  });

  it('serves a want that arrives while a round is listing', async () => {
    let release: () => void = () => undefined;
    const { poller, calls, clock } = pollerListing(async (ids) => {
      if (calls.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return found(ids);
    });
    poller.want('first', 'ns/first');
    const round = poller.tick();
    await Promise.resolve();
    poller.want('second', 'ns/second');
    release();
    await round;
    clock.now += 200;
    await poller.tick();
    expect(calls.map((call) => call.ids[0])).toEqual(['first', 'second']);
  });

  it('lists again, after a restart, the ids of a round stopped mid-list', async () => {
    let listed: () => void = () => undefined;
    const { poller, calls, clock } = pollerListing((ids, signal) => {
      listed();
      return new Promise((resolve) => {
        if (calls.length > 1) resolve(found(ids));
        else signal.addEventListener('abort', () => resolve(found(ids)), { once: true });
      });
    });
    poller.want('d1', 'ns/d1');
    const first = new Promise<void>((resolve) => (listed = resolve));
    const round = poller.tick();
    await first;
    await poller.stop();
    await round;
    poller.start();
    await poller.stop();
    clock.now += 200;
    await poller.tick();
    expect(calls.map((call) => call.ids[0])).toEqual(['d1', 'd1']);
  });

  it('lists again the ids of a round whose list threw', async () => {
    const { poller, calls, clock } = pollerListing((ids) =>
      calls.length === 1 ? Promise.reject(new Error('socket hang up')) : Promise.resolve(found(ids)),
    );
    poller.want('d1', 'ns/d1');
    await expect(poller.tick()).rejects.toThrow('socket hang up');
    clock.now += 200;
    await poller.tick();
    expect(calls.map((call) => call.ids[0])).toEqual(['d1', 'd1']);
  });

  it('lists the ids of a failed round again once its pause is over', async () => {
    let failing = true;
    const { poller, calls, clock } = pollerListing((ids) =>
      Promise.resolve(
        failing ? { ok: false, error: { kind: 'Transient', message: 'HTTP 503', status: 503 } } : found(ids),
      ),
    );
    poller.want('d1', 'ns/d1');
    await poller.tick();
    failing = false;
    // The pause is at most 1 s (a jittered backoff); d1's next turn after that is 1 s later.
    for (clock.now = 200; clock.now <= 1_400; clock.now += 200) await poller.tick();
    expect(calls.map((call) => call.ids.includes('d1'))).toEqual([true, true]);
    expect(calls[1]?.at).toBeLessThanOrEqual(1_200);
  });
});

describe('FleetPoller resync cost', () => {
  it('fills list calls with settled deployments due soon, so resync stays near N/100 calls per period', async () => {
    let now = 0;
    const calls: number[] = [];
    let seed = 1;
    const poller = new FleetPoller({
      cache: new ObservationCache(),
      now: () => now,
      // A deterministic spread of jitter, as Math.random would give.
      random: () => (seed = (seed * 16807) % 2147483647) / 2147483647,
      resyncPeriodMs: 60_000,
      tickMs: 200,
      enqueue: () => {},
      controlPlane: {
        listDeploymentsByIds: async (ids): Promise<Outcome<Deployment[]>> => {
          calls.push(ids.length);
          return { ok: true, value: ids.map((id) => deployment(id, 'r1')) };
        },
      },
    });
    for (let i = 0; i < 2_000; i += 1) poller.track(`d${i}`, `ns/o${i}`, 'steady');
    // Twelve periods, ticking as the real timer does; count the calls of the last period.
    const periods = 12;
    let lastPeriodCalls = 0;
    for (now = 0; now <= periods * 60_000; now += 200) {
      const before = calls.length;
      await poller.tick();
      if (now > (periods - 1) * 60_000) lastPeriodCalls += calls.length - before;
    }
    // 2,000 objects need 20 full calls per period; allow slack for partly filled calls.
    expect(lastPeriodCalls).toBeLessThanOrEqual(40);
    expect(lastPeriodCalls).toBeGreaterThanOrEqual(20);
  });
});

describe('FleetPoller under a failing control plane', () => {
  it('backs off on 401 (and any failure), says so, and recovers by itself', async () => {
    let now = 0;
    let refusing = true;
    const calls: number[] = [];
    const health: Array<string | undefined> = [];
    const poller = new FleetPoller({
      cache: new ObservationCache(),
      now: () => now,
      random: () => 0.5,
      inflightPollMs: 200,
      tickMs: 200,
      enqueue: () => {},
      onHealthChange: (failure) => health.push(failure?.kind),
      controlPlane: {
        listDeploymentsByIds: async (ids): Promise<Outcome<Deployment[]>> => {
          calls.push(now);
          if (refusing)
            return { ok: false, error: { kind: 'Unauthorized', message: 'HTTP 401', status: 401 } };
          return { ok: true, value: ids.map((id) => deployment(id, 'r1')) };
        },
      },
    });
    poller.track('d1', 'ns/o1', 'inflight');
    for (now = 0; now <= 30_000; now += 200) await poller.tick();
    // Without backoff: a list every 200 ms tick, about 150 in 30 s. With it: 1.5 s, 3 s, 6 s, 12 s...
    expect(calls.length).toBeLessThanOrEqual(6);
    expect(calls.length).toBeGreaterThanOrEqual(4);
    expect(poller.lastFailure?.kind).toBe('Unauthorized');
    refusing = false;
    for (; now <= 120_000 && poller.lastFailure; now += 200) await poller.tick();
    expect(poller.lastFailure).toBeUndefined();
    expect(health.at(-1)).toBeUndefined();
    expect(health.filter((kind) => kind === 'Unauthorized').length).toBeGreaterThanOrEqual(4);
  });
});
