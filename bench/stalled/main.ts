// `npx tsx bench/stalled/main.ts [--stalled 100] [--healthy 1000] [--minutes 10] [--json]`
// What a stalled object costs: `--stalled` AgentDeployments the control plane rejects (an
// unknown listener id) created beside `--healthy` ones that converge at the same time, under
// the published limit (1000 requests / 10 s). Over `--minutes`, counted by the control-plane
// emulator: the refused creates, and from them the calls per stalled object per minute
// (each refusal is one POST plus one name lookup that tells a name clash from any other
// rejection). The target is at most one call per stalled object per minute over ten minutes;
// before issue 13 a rejected object was retried many times a second (docs/benchmarks.md has
// the figure).
import { parseArgs } from 'node:util';
import { agentDeployment, benchObjectName, createAll, isReady } from '../support/agent-deployments.js';
import { AGENT_DEPLOYMENTS, type AgentDeploymentObject } from '../support/agent-deployments.js';
import { BENCH_NAMESPACE, Emulators } from '../support/emulators.js';
import { round } from '../support/emulator-stats.js';
import { OperatorProcess } from '../support/operator-process.js';

const UNKNOWN_LISTENER_ID = '99999999-9999-4999-8999-999999999999';
/** A revision takes 4 phases: 4 s from POST to DEPLOYED, as in bench:converge. */
const REVISION_PHASE_MS = 1_000;
/** One refusal costs a POST and the name lookup that classifies it. */
const CALLS_PER_REFUSAL = 2;

interface Args {
  stalled: number;
  healthy: number;
  minutes: number;
  json: boolean;
}

function parse(argv: string[]): Args {
  const { values } = parseArgs({
    args: argv,
    options: {
      stalled: { type: 'string', default: '100' },
      healthy: { type: 'string', default: '1000' },
      minutes: { type: 'string', default: '10' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const number = (flag: string, text: string | undefined, min: number): number => {
    const value = Number(text);
    if (text === undefined || !Number.isFinite(value) || value < min) {
      throw new Error(`--${flag}: must be a number >= ${min}, got ${JSON.stringify(text ?? null)}`);
    }
    return value;
  };
  return {
    stalled: Math.round(number('stalled', values.stalled, 1)),
    healthy: Math.round(number('healthy', values.healthy, 0)),
    minutes: number('minutes', values.minutes, 0.5),
    json: values.json,
  };
}

interface Stats {
  total: number;
  throttled: number;
  byRoute: Array<{ method: string; route: string; status: number; count: number }>;
}

function refusedCreates(stats: Stats): number {
  return stats.byRoute
    .filter(
      (row) =>
        row.method === 'POST' &&
        row.route === '/v2/deployments' &&
        (row.status === 400 || row.status === 422),
    )
    .reduce((sum, row) => sum + row.count, 0);
}

async function countWhere(
  emulators: Emulators,
  predicate: (object: AgentDeploymentObject) => boolean,
): Promise<number> {
  const list = await emulators.kube.list<AgentDeploymentObject>(AGENT_DEPLOYMENTS, {
    namespace: BENCH_NAMESPACE,
  });
  return list.items.filter(predicate).length;
}

const stalledCondition = (object: AgentDeploymentObject): boolean =>
  object.status?.conditions?.some((c) => c.type === 'Stalled' && c.status === 'True') ?? false;

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  const emulators = await Emulators.start({ revisionPhaseMs: REVISION_PHASE_MS });
  let operator: OperatorProcess | undefined;
  try {
    const listenerId = await emulators.listenerId();
    operator = await OperatorProcess.start({
      controlPlaneUrl: emulators.controlPlaneUrl,
      kubeconfigPath: emulators.kubeconfigPath,
    });
    const stalled = Array.from({ length: args.stalled }, (_, i) =>
      agentDeployment(`stalled-${String(i).padStart(4, '0')}`, UNKNOWN_LISTENER_ID),
    );
    const healthy = Array.from({ length: args.healthy }, (_, i) =>
      agentDeployment(benchObjectName(i), listenerId),
    );
    const started = Date.now();
    await createAll(emulators.kube, [...stalled, ...healthy]);

    const windowMs = args.minutes * 60_000;
    let allStalledAtMs: number | undefined;
    let healthyReadyAtMs: number | undefined;
    const perMinute: number[] = [];
    let previous = 0;
    let nextMinute = started + 60_000;
    while (Date.now() - started < windowMs) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const now = Date.now();
      if (allStalledAtMs === undefined && (await countWhere(emulators, stalledCondition)) >= args.stalled) {
        allStalledAtMs = now - started;
      }
      if (healthyReadyAtMs === undefined && (await countWhere(emulators, isReady)) >= args.healthy) {
        healthyReadyAtMs = now - started;
      }
      if (now >= nextMinute) {
        const refused = refusedCreates(await emulators.admin<Stats>('GET', '/stats'));
        perMinute.push(refused - previous);
        previous = refused;
        nextMinute += 60_000;
      }
    }
    const stats = await emulators.admin<Stats>('GET', '/stats');
    const refused = refusedCreates(stats);
    const minutes = (Date.now() - started) / 60_000;
    const callsPerStalledPerMinute = (refused * CALLS_PER_REFUSAL) / args.stalled / minutes;
    const result = {
      stalled: args.stalled,
      healthy: args.healthy,
      minutes: round(minutes, 2),
      refusedCreates: refused,
      refusedCreatesPerMinute: perMinute,
      callsPerStalledObjectPerMinute: round(callsPerStalledPerMinute, 3),
      target: 1,
      allStalledAfterSeconds: allStalledAtMs === undefined ? null : round(allStalledAtMs / 1000, 1),
      healthyReadyAfterSeconds: healthyReadyAtMs === undefined ? null : round(healthyReadyAtMs / 1000, 1),
      totalRequests: stats.total,
      throttled: stats.throttled,
    };
    if (args.json) {
      console.log(JSON.stringify(result));
      return;
    }
    console.log(
      `stalled objects: ${result.stalled} (unknown listener id) beside ${result.healthy} healthy ones`,
    );
    console.log(`window: ${result.minutes} min from the first create`);
    console.log(
      `all stalled after ${result.allStalledAfterSeconds ?? 'never'} s; all healthy Ready after ${result.healthyReadyAfterSeconds ?? 'never'} s`,
    );
    console.log(`refused creates: ${refused} in total; per minute: ${perMinute.join(', ')}`);
    console.log(
      `calls per stalled object per minute: ${result.callsPerStalledObjectPerMinute} (target <= ${result.target}; ` +
        `${CALLS_PER_REFUSAL} calls per refusal)`,
    );
    console.log(`control-plane requests: ${stats.total}, 429s: ${stats.throttled}`);
  } finally {
    await operator?.stop();
    await emulators.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
