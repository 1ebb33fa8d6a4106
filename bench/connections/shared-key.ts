// Two operator installations sharing one key (two clusters, one workspace): two operator
// processes, each with its own Kubernetes emulator and N AgentDeployments, against one
// control-plane emulator that counts both against the same key. Neither knows the other
// exists; each sizes its budget from the published limit and learns the rest from 429s.
// Prints, per operator: time to converge, calls, 429s, and its share of the answered calls
// while both were converging; then the 429 ratio of the whole run and the floor ratio.
//
//   npx tsx bench/connections/shared-key.ts [--n 150] [--rate-limit 100/10] [--revision-phase-ms 250]
import { parseArgs } from 'node:util';
import { agentDeployment, createAll } from '../support/agent-deployments.js';
import { Emulators } from '../support/emulators.js';
import { OperatorProcess } from '../support/operator-process.js';
import { ReadyTracker } from '../support/ready-tracker.js';
import { floorSeconds } from '../converge/floor.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '150' },
    'rate-limit': { type: 'string', default: '100/10' },
    'revision-phase-ms': { type: 'string', default: '250' },
    'timeout-s': { type: 'string', default: '600' },
    /** Prints, every 5 s, the calls each operator made by route and the objects Ready. */
    trace: { type: 'boolean', default: false },
  },
});
const n = Number(values.n);
const rateLimit = values['rate-limit'];
const [count, windowSeconds] = rateLimit.split('/').map(Number) as [number, number];
const revisionPhaseMs = Number(values['revision-phase-ms']);

interface Side {
  name: string;
  emulators: Emulators;
  operator: OperatorProcess;
  tracker: ReadyTracker;
}

async function callsOf(operator: OperatorProcess): Promise<{ total: number; throttled: number }> {
  const total = await operator.metric('agent_operator_controlplane_requests_total');
  const throttled = await operator.metric('agent_operator_controlplane_requests_total', { code: '429' });
  return { total, throttled };
}

/** Calls per `route code` of one operator (where the calls went: creates, polls, retries). */
async function callsByRoute(operator: OperatorProcess): Promise<Map<string, number>> {
  const name = 'agent_operator_controlplane_requests_total';
  const text = await (await fetch(`${operator.metricsUrl}/metrics?name[]=${name}`)).text();
  const byRoute = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^(\w+)\{(.*)\}\s+(\S+)/.exec(line);
    if (match?.[1] !== name) continue;
    const labels = match[2] ?? '';
    const label = (key: string): string => new RegExp(`${key}="([^"]*)"`).exec(labels)?.[1] ?? '?';
    const key = `${label('method')} ${label('route')} ${label('code')}`;
    byRoute.set(key, (byRoute.get(key) ?? 0) + Number(match[3]));
  }
  return byRoute;
}

/** Every 5 s until `done`: per operator, calls by route since the last line, and objects Ready. */
async function trace(sides: readonly Side[], origin: number, done: Promise<unknown>): Promise<void> {
  let over = false;
  void done.then(() => (over = true));
  const previous = sides.map(() => new Map<string, number>());
  while (!over) {
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const parts: string[] = [];
    for (const [i, side] of sides.entries()) {
      const now = await callsByRoute(side.operator);
      const before = previous[i] ?? new Map<string, number>();
      const delta = [...now]
        .map(([key, calls]) => [key, calls - (before.get(key) ?? 0)] as const)
        .filter(([, calls]) => calls > 0)
        .map(
          ([key, calls]) =>
            `${key.replace('/v2/deployments', 'd').replace('/{deployment_id}/revisions/{revision_id}', '/r')}=${calls}`,
        );
      previous[i] = now;
      parts.push(`${side.name}: ready ${side.tracker.sortedReadyTimes().length} ${delta.join(' ')}`);
    }
    console.log(`  t=${((performance.now() - origin) / 1000).toFixed(0)} s  ${parts.join(' | ')}`);
  }
}

async function main(): Promise<void> {
  const shared = await Emulators.start({ revisionPhaseMs, rateLimit });
  const other = await Emulators.start({ revisionPhaseMs, rateLimit });
  const sides: Side[] = [];
  try {
    for (const [name, emulators] of [
      ['a', shared],
      ['b', other],
    ] as const) {
      const operator = await OperatorProcess.start({
        controlPlaneUrl: shared.controlPlaneUrl,
        kubeconfigPath: emulators.kubeconfigPath,
        flags: ['--rate-limit', rateLimit],
      });
      sides.push({ name, emulators, operator, tracker: new ReadyTracker(emulators.kube) });
    }
    const listenerId = await shared.listenerId();
    await shared.admin('POST', '/reset');
    for (const side of sides) await side.tracker.start();
    const origin = performance.now();
    for (const side of sides) side.tracker.origin = origin;
    await Promise.all(
      sides.map((side) =>
        createAll(
          side.emulators.kube,
          Array.from({ length: n }, (_, i) =>
            agentDeployment(`${side.name}-agent-${String(i).padStart(5, '0')}`, listenerId),
          ),
        ),
      ),
    );
    // Share while both converge: sample both operators' answered calls when the first is done.
    const finished = sides.map((side) => side.tracker.waitForReady(n, Number(values['timeout-s']) * 1000));
    const tracing = values.trace ? trace(sides, origin, Promise.all(finished)) : Promise.resolve();
    await Promise.race(finished);
    const atFirst = await Promise.all(sides.map((side) => callsOf(side.operator)));
    await Promise.all(finished);
    await tracing;
    const atEnd = await Promise.all(sides.map((side) => callsOf(side.operator)));

    const answered = atFirst.map((c) => c.total - c.throttled);
    const answeredTotal = answered.reduce((a, b) => a + b, 0);
    const floor = floorSeconds({
      n: 2 * n,
      allowedPerSecond: count / windowSeconds,
      buildMs: 4 * revisionPhaseMs,
    });
    console.log(
      `two operators, one key: ${n} objects each, limit ${rateLimit}, revision phase ${revisionPhaseMs} ms`,
    );
    sides.forEach((side, i) => {
      const times = side.tracker.sortedReadyTimes();
      const seconds = (times[times.length - 1] ?? 0) / 1000;
      const calls = atEnd[i] ?? { total: 0, throttled: 0 };
      console.log(
        `operator ${side.name}: converged in ${seconds.toFixed(1)} s, ${calls.total} calls, ${calls.throttled} answered 429, ` +
          `share of answered calls while both converged ${((100 * (answered[i] ?? 0)) / Math.max(answeredTotal, 1)).toFixed(1)}%`,
      );
    });
    const total = atEnd.reduce((a, c) => a + c.total, 0);
    const throttled = atEnd.reduce((a, c) => a + c.throttled, 0);
    const routes = new Map<string, number>();
    for (const side of sides) {
      for (const [key, calls] of await callsByRoute(side.operator))
        routes.set(key, (routes.get(key) ?? 0) + calls);
    }
    console.log(
      `calls of both by route: ${[...routes]
        .sort((a, b) => b[1] - a[1])
        .map(([key, calls]) => `${key}: ${calls}`)
        .join(', ')}`,
    );
    const last = Math.max(...sides.map((side) => (side.tracker.sortedReadyTimes().at(-1) ?? 0) / 1000));
    console.log(
      `429 ratio: ${((100 * throttled) / Math.max(total, 1)).toFixed(2)}% of ${total} calls (target < 1%)`,
    );
    console.log(
      `both converged in ${last.toFixed(1)} s; floor for ${2 * n} objects on one key ${floor.toFixed(1)} s; ratio ${(last / floor).toFixed(2)}`,
    );
  } finally {
    for (const side of sides) {
      await side.tracker.stop();
      await side.operator.stop();
    }
    await shared.close();
    await other.close();
  }
}

await main();
