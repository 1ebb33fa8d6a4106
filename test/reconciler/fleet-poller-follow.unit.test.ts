// The poller's 'follow' mode (deployments that build on push): a revision a push made is seen
// within the push interval, an unchanged deployment wakes its object only at its resync, and
// following many costs about one list call per 100 of them per interval.
import { describe, expect, it } from 'vitest';
import type { Deployment } from '../../src/controlplane/models/index.js';
import { FleetPoller } from '../../src/reconcilers/agentdeployment/observation/fleet-poller.js';
import { ObservationCache } from '../../src/reconcilers/agentdeployment/observation/observation-cache.js';
import type { Outcome } from '../../src/reconcilers/agentdeployment/ports.js';

const PUSH_POLL_MS = 10_000;
const RESYNC_MS = 600_000;
const TICK_MS = 200;

function deployment(id: string, latest: string): Deployment {
  return {
    name: id,
    source: 'repo_host',
    source_config: { build_on_push: true },
    source_revision_config: { repo_ref: 'main' },
    secrets: [],
    id,
    tenant_id: '00000000-0000-4000-8000-000000000000',
    created_at: '2026-11-21T00:00:00Z',
    updated_at: '2026-11-21T00:00:00Z',
    status: 'READY',
    latest_revision_id: latest,
    active_revision_id: 'r1',
  };
}

function setup() {
  let now = 0;
  const latest = new Map<string, string>();
  const calls: string[][] = [];
  const enqueued: Array<{ key: string; at: number }> = [];
  const poller = new FleetPoller({
    cache: new ObservationCache(),
    now: () => now,
    random: () => 0.5,
    inflightPollMs: 2_000,
    resyncPeriodMs: RESYNC_MS,
    pushPollMs: PUSH_POLL_MS,
    tickMs: TICK_MS,
    enqueue: (key) => enqueued.push({ key, at: now }),
    controlPlane: {
      listDeploymentsByIds: async (ids): Promise<Outcome<Deployment[]>> => {
        calls.push([...ids]);
        return { ok: true, value: ids.map((id) => deployment(id, latest.get(id) ?? 'r1')) };
      },
    },
  });
  const runFor = async (ms: number): Promise<void> => {
    const end = now + ms;
    for (; now < end; now += TICK_MS) await poller.tick();
  };
  return { poller, calls, enqueued, latest, runFor, now: () => now };
}

describe('FleetPoller follow mode (build on push)', () => {
  it('sees a pushed revision within the push interval and wakes only that object', async () => {
    const { poller, enqueued, latest, runFor, now } = setup();
    for (let i = 0; i < 50; i += 1) poller.track(`d${i}`, `ns/o${i}`, 'follow');
    await runFor(2 * PUSH_POLL_MS);
    enqueued.length = 0;
    const pushedAt = now();
    latest.set('d7', 'r2');
    await runFor(2 * PUSH_POLL_MS);
    expect(enqueued.map((entry) => entry.key)).toEqual(['ns/o7']);
    // Coalescing lets a round wait a quarter interval: seen within 1.25 intervals of the push.
    expect(enqueued[0]!.at - pushedAt).toBeLessThanOrEqual(PUSH_POLL_MS * 1.25);
  });

  it('wakes an unchanged followed object at its resync, not at every list', async () => {
    const { poller, enqueued, runFor } = setup();
    poller.track('d1', 'ns/o1', 'follow');
    // The first list is its first observation (a change); then it is listed every interval.
    await runFor(PUSH_POLL_MS * 2);
    expect(enqueued.map((entry) => entry.key)).toEqual(['ns/o1']);
    enqueued.length = 0;
    await runFor(RESYNC_MS * 0.8);
    expect(enqueued).toEqual([]);
    await runFor(RESYNC_MS * 0.5);
    expect(enqueued.map((entry) => entry.key)).toEqual(['ns/o1']);
  });

  it('follows 1,000 deployments with about 10 list calls per push interval, 100 ids each', async () => {
    const { poller, calls, runFor } = setup();
    // Tracked over a minute, as objects settle one by one.
    for (let i = 0; i < 1_000; i += 1) {
      poller.track(`d${i}`, `ns/o${i}`, 'follow');
      if (i % 20 === 19) await runFor(1_200);
    }
    await runFor(60_000);
    calls.length = 0;
    await runFor(60_000);
    // Steady state: 1,000 ids every ~10-12.5 s in full batches, about 50 calls a minute.
    expect(calls.length).toBeLessThanOrEqual(60);
    expect(calls.flat().length / calls.length).toBeGreaterThan(90);
  });
});
