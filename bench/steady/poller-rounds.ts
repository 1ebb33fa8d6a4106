// `npx tsx bench/steady/poller-rounds.ts [--n 10000] [--resync-period 10m] [--periods 12]`
// The operator's own FleetPoller (src/reconcilers/agentdeployment/observation/fleet-poller.ts)
// driven by a simulated clock: N settled deployments tracked in steady mode, ticked every
// 200 ms (its default) for several resync periods, with a control plane that answers every
// list at once. Prints the list calls made in each period. This shows in seconds what a live
// run would need hours to show: how the calls per period evolve once the objects' resync
// times have drifted apart (each refresh re-draws a +-10% jitter), and the CPU the ticks took.
import { parseArgs } from 'node:util';
import type { Deployment } from '../../src/controlplane/models/index.js';
import { parseDuration } from '../../src/operator/duration.js';
import { FleetPoller } from '../../src/reconcilers/agentdeployment/observation/fleet-poller.js';
import { ObservationCache } from '../../src/reconcilers/agentdeployment/observation/observation-cache.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '10000' },
    'resync-period': { type: 'string', default: '10m' },
    periods: { type: 'string', default: '12' },
    'tick-ms': { type: 'string', default: '200' },
  },
  strict: true,
});
const n = Number(values.n);
const periodMs = parseDuration(values['resync-period']);
const periods = Number(values.periods);
const tickMs = Number(values['tick-ms']);
if (!Number.isInteger(n) || n < 1) throw new Error('--n: must be a whole number >= 1');
if (periodMs === undefined || periodMs < 1000) throw new Error('--resync-period: a duration such as 10m');
if (!Number.isInteger(periods) || periods < 1) throw new Error('--periods: must be a whole number >= 1');

let now = 0;
const deployments = new Map<string, Deployment>();
const callsByPeriod: number[] = Array.from({ length: periods }, () => 0);
const idsByPeriod: number[] = Array.from({ length: periods }, () => 0);
const poller = new FleetPoller({
  controlPlane: {
    listDeploymentsByIds: (ids) => {
      const period = Math.floor(now / periodMs);
      if (period < periods) {
        callsByPeriod[period] = (callsByPeriod[period] ?? 0) + 1;
        idsByPeriod[period] = (idsByPeriod[period] ?? 0) + ids.length;
      }
      return Promise.resolve({ ok: true, value: ids.map((id) => deployments.get(id) as Deployment) });
    },
  },
  cache: new ObservationCache(),
  enqueue: () => undefined,
  now: () => now,
  resyncPeriodMs: periodMs,
  tickMs,
});
for (let i = 0; i < n; i += 1) {
  const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  deployments.set(id, { id } as Deployment);
  // As after the operator's start: every object observed once, then tracked as settled.
  poller.track(id, `bench/agent-${i}`, 'steady');
}
const cpuBefore = process.cpuUsage();
let ticks = 0;
for (now = 0; now < periods * periodMs; now += tickMs, ticks += 1) await poller.tick();
const cpu = process.cpuUsage(cpuBefore);
const cpuMs = (cpu.user + cpu.system) / 1000;

const budget = (100 * periodMs) / 1000;
process.stdout.write(
  `${n} settled deployments, resync period ${values['resync-period']}, tick ${tickMs} ms, budget ${budget} calls per period\n`,
);
callsByPeriod.forEach((calls, index) => {
  const ids = idsByPeriod[index] ?? 0;
  process.stdout.write(
    `period ${index + 1}: ${calls} list calls (${((calls / budget) * 100).toFixed(2)}% of the budget), ${(ids / Math.max(calls, 1)).toFixed(1)} ids per call\n`,
  );
});
// What following the fleet costs the operator's CPU, the lists' answers aside (they are instant here).
process.stdout.write(
  `poller CPU: ${cpuMs.toFixed(0)} ms for ${ticks} ticks, ${((cpuMs * 1000) / ticks).toFixed(1)} us per tick\n`,
);
