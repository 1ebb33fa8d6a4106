// `npx tsx bench/steady/push-following.ts [--n 1000] [--push-poll 10s] [--minutes 10]`
// What following deployments that build on push costs: the operator's own FleetPoller on a
// simulated clock, ticked every 200 ms, with a control plane that answers every list at once.
// N deployments are tracked in each mode in turn, as objects settle one by one over the
// first minute, and the list calls per minute are counted after that:
//   follow    build on push: listed every --push-poll (the new cadence)
//   inflight  a revision under way: listed every 2 s (--poll-interval), the budget roomy
//   inflight, budget short: the same with rounds coalesced (a saturated key)
//   steady    settled, no build on push: listed once per 10 min resync
// It also pushes to one deployment in each minute of the follow run and reports how long
// the poller took to see it.
import { parseArgs } from 'node:util';
import type { Deployment } from '../../src/controlplane/models/index.js';
import { parseDuration } from '../../src/operator/duration.js';
import { DEFAULT_TIMINGS } from '../../src/reconcilers/agentdeployment/defaults.js';
import {
  FleetPoller,
  type TrackMode,
} from '../../src/reconcilers/agentdeployment/observation/fleet-poller.js';
import { ObservationCache } from '../../src/reconcilers/agentdeployment/observation/observation-cache.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '1000' },
    'push-poll': { type: 'string', default: '10s' },
    minutes: { type: 'string', default: '10' },
  },
  strict: true,
});
const n = Number(values.n);
const pushPollMs = parseDuration(values['push-poll']);
const minutes = Number(values.minutes);
if (!Number.isInteger(n) || n < 1) throw new Error('--n: must be a whole number >= 1');
if (pushPollMs === undefined || pushPollMs < 200) throw new Error('--push-poll: a duration such as 10s');
if (!Number.isInteger(minutes) || minutes < 1) throw new Error('--minutes: must be a whole number >= 1');

const TICK_MS = 200;
const MINUTE = 60_000;

interface Run {
  callsPerMinute: number;
  idsPerCall: number;
  /** Push to seen, per push (follow only). */
  seenAfterMs: number[];
}

async function run(mode: TrackMode, headroom: number): Promise<Run> {
  let now = 0;
  let calls = 0;
  let ids = 0;
  const latest = new Map<string, string>();
  const pushedAt = new Map<string, number>();
  const seenAfterMs: number[] = [];
  const measuring = () => now >= MINUTE * 2;
  const poller = new FleetPoller({
    controlPlane: {
      budgetHeadroom: () => headroom,
      listDeploymentsByIds: (list) => {
        if (measuring()) {
          calls += 1;
          ids += list.length;
        }
        return Promise.resolve({
          ok: true,
          value: list.map(
            (id) =>
              ({
                id,
                status: 'READY',
                updated_at: '',
                latest_revision_id: latest.get(id) ?? 'r1',
                active_revision_id: 'r1',
              }) as Deployment,
          ),
        });
      },
    },
    cache: new ObservationCache(),
    enqueue: (key) => {
      const id = key.slice('bench/'.length);
      const at = pushedAt.get(id);
      if (at !== undefined) {
        seenAfterMs.push(now - at);
        pushedAt.delete(id);
      }
    },
    now: () => now,
    inflightPollMs: DEFAULT_TIMINGS.inflightPollMs,
    resyncPeriodMs: DEFAULT_TIMINGS.resyncPeriodMs,
    pushPollMs,
    tickMs: TICK_MS,
  });
  const idOf = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  // Objects settle one by one over the first minute; each is observed once when tracked.
  for (let i = 0; i < n; i += 1) {
    poller.track(idOf(i), `bench/${idOf(i)}`, mode);
    const due = Math.floor(((i + 1) * MINUTE) / n);
    for (; now < due; now += TICK_MS) await poller.tick();
  }
  const end = MINUTE * (2 + minutes);
  let push = 0;
  for (; now < end; now += TICK_MS) {
    if (measuring() && now % MINUTE === 0 && mode === 'follow') {
      const id = idOf((push * 37) % n);
      push += 1;
      latest.set(id, `r${push + 1}`);
      pushedAt.set(id, now);
    }
    await poller.tick();
  }
  return { callsPerMinute: calls / minutes, idsPerCall: ids / Math.max(calls, 1), seenAfterMs };
}

const rows: Array<[string, Run]> = [
  [`follow (build on push, every ${values['push-poll']})`, await run('follow', 1)],
  [`inflight (every ${DEFAULT_TIMINGS.inflightPollMs / 1000} s, budget roomy)`, await run('inflight', 1)],
  ['inflight (budget short: rounds coalesced)', await run('inflight', 0)],
  ['steady (resync every 10 min)', await run('steady', 1)],
];
process.stdout.write(
  `${n} deployments per mode, tick ${TICK_MS} ms, measured over ${minutes} min after 2 min of settling\n`,
);
process.stdout.write(
  '| Mode | List calls per minute | Ids per call | Push seen after (max) |\n|---|---|---|---|\n',
);
for (const [label, result] of rows) {
  const seen =
    result.seenAfterMs.length > 0 ? `${(Math.max(...result.seenAfterMs) / 1000).toFixed(1)} s` : '-';
  process.stdout.write(
    `| ${label} | ${result.callsPerMinute.toFixed(1)} | ${result.idsPerCall.toFixed(1)} | ${seen} |\n`,
  );
}
