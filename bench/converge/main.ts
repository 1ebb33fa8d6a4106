// `npm run bench:converge -- --n <N> [--runs 3] [--json] [--build-ms 4000] [--skip-baseline]`
// N AgentDeployments created at once against both emulators (published limit: 1000
// requests / 10 s per key; revisions take --build-ms from POST to DEPLOYED). Runs the
// operator (`--runs` times) and the naive baseline (`--baseline-runs` times, default 1), each
// against fresh emulators, and prints the time until all are Ready, the calls per
// deployment by route, the 429s, the floor and the ratios; writes bench/out/converge-<N>.svg.
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { median, round } from '../support/emulator-stats.js';
import { ROOT } from '../support/processes.js';
import { renderConvergeChart } from './chart.js';
import { floorSeconds, strictlyNeededCalls, type FloorInput } from './floor.js';
import { runStrategy, type Strategy, type StrategyRun } from './run-strategy.js';

/** The published default row: 1000 requests per 10 s per API key. */
const ALLOWED_PER_SECOND = 1000 / 10;
/** external_container revisions pass CREATING, QUEUED, AWAITING_DEPLOY, DEPLOYING (one phase each). */
const TIMED_PHASES = 4;

const USAGE = `Usage: npm run bench:converge -- --n <N> [options]

  --n <N>              AgentDeployments created at once (required)
  --runs <k>           operator runs, reported as the median (default 1)
  --baseline-runs <k>  baseline runs (default 1)
  --skip-baseline      run the operator only
  --build-ms <ms>      POST-to-DEPLOYED time on the emulator, a multiple of ${TIMED_PHASES} (default 4000)
  --json               print one JSON object instead of the text report
  --out <dir>          where the chart goes (default bench/out)
  --verbose            echo the operator's log lines to stderr
  --cpu-profile <file> write a CPU profile of the operator from the first create until all
                       are Ready (the last operator run's, with --runs above 1)
  --stages             print, every half second of each operator run, how many objects had
                       their finalizer, their create intent, their deployment id and Ready
  --concurrency <n>    the operator's --concurrency (default: the operator's own default)
  --latency-ms <ms>    delay every control-plane call by this much (the emulator's fault API),
                       as a hosted control plane's round trip would (default 0)
  --cold-kube          skip the Kubernetes emulator's warm-up: the burst then meets a fresh
                       process, whose request paths V8 has not optimised yet
`;

interface Args {
  n: number;
  runs: number;
  baselineRuns: number;
  buildMs: number;
  json: boolean;
  out: string;
  verbose: boolean;
  cpuProfile: string | undefined;
  stages: boolean;
  /** The operator's --concurrency; its own default when undefined. */
  concurrency: number | undefined;
  /** Added to every control-plane call, for both strategies. */
  latencyMs: number;
  coldKube: boolean;
}

function parse(argv: string[]): Args | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      n: { type: 'string' },
      runs: { type: 'string', default: '1' },
      'baseline-runs': { type: 'string', default: '1' },
      'skip-baseline': { type: 'boolean', default: false },
      'build-ms': { type: 'string', default: '4000' },
      json: { type: 'boolean', default: false },
      out: { type: 'string', default: join(ROOT, 'bench/out') },
      verbose: { type: 'boolean', default: false },
      'cpu-profile': { type: 'string' },
      stages: { type: 'boolean', default: false },
      concurrency: { type: 'string' },
      'latency-ms': { type: 'string', default: '0' },
      'cold-kube': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return 'help';
  const integer = (flag: string, text: string | undefined, min: number): number => {
    const value = Number(text);
    if (text === undefined || !Number.isInteger(value) || value < min) {
      throw new Error(`--${flag}: must be a whole number >= ${min}, got ${JSON.stringify(text ?? null)}`);
    }
    return value;
  };
  const buildMs = integer('build-ms', values['build-ms'], 0);
  if (buildMs % TIMED_PHASES !== 0) {
    throw new Error(
      `--build-ms: must be a multiple of ${TIMED_PHASES} (one emulator phase per state), got ${buildMs}`,
    );
  }
  return {
    n: integer('n', values.n, 1),
    runs: integer('runs', values.runs, 1),
    baselineRuns: values['skip-baseline'] ? 0 : integer('baseline-runs', values['baseline-runs'], 1),
    buildMs,
    json: values.json,
    out: values.out,
    verbose: values.verbose,
    cpuProfile: values['cpu-profile'] === undefined ? undefined : resolve(values['cpu-profile']),
    stages: values.stages,
    concurrency: values.concurrency === undefined ? undefined : integer('concurrency', values.concurrency, 1),
    latencyMs: integer('latency-ms', values['latency-ms'], 0),
    coldKube: values['cold-kube'],
  };
}

/** The run whose convergence time is the median (the lower middle one for an even count). */
function medianRun(runs: StrategyRun[]): StrategyRun | undefined {
  const sorted = [...runs].sort((a, b) => a.convergeSeconds - b.convergeSeconds);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

async function runMany(
  strategy: Strategy,
  count: number,
  args: Args,
  floor: FloorInput,
): Promise<StrategyRun[]> {
  const runs: StrategyRun[] = [];
  for (let i = 0; i < count; i += 1) {
    // Generous: a run that cannot finish in this time has a problem worth an error.
    const expectedSeconds =
      strategy === 'operator' ? floorSeconds(floor) : (args.n * 2.5) / 10 + args.buildMs / 1000;
    const run = await runStrategy({
      strategy,
      n: args.n,
      revisionPhaseMs: args.buildMs / TIMED_PHASES,
      timeoutMs: Math.max(120_000, expectedSeconds * 5_000),
      verbose: args.verbose,
      controlPlaneLatencyMs: args.latencyMs,
      coldKube: args.coldKube,
      ...(strategy === 'operator' && args.concurrency !== undefined
        ? { operatorFlags: ['--concurrency', String(args.concurrency)] }
        : {}),
      ...(strategy === 'operator' && args.cpuProfile !== undefined ? { cpuProfile: args.cpuProfile } : {}),
      ...(strategy === 'operator' && args.stages ? { stages: true } : {}),
    });
    process.stderr.write(
      `${strategy} run ${i + 1}/${count}: all ${args.n} Ready in ${run.convergeSeconds.toFixed(2)} s, ` +
        `${run.total} calls, ${run.throttled429} x 429, ${run.cpuSeconds.toFixed(1)} CPU s\n`,
    );
    if (run.stages) process.stderr.write(`${run.stages.join('\n')}\n`);
    runs.push(run);
  }
  return runs;
}

export async function main(argv: string[]): Promise<number> {
  let args: Args | 'help';
  try {
    args = parse(argv);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (args === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const floor: FloorInput = { n: args.n, allowedPerSecond: ALLOWED_PER_SECOND, buildMs: args.buildMs };
  const floorAt = floorSeconds(floor);
  const operatorRuns = await runMany('operator', args.runs, args, floor);
  const baselineRuns = await runMany('baseline', args.baselineRuns, args, floor);

  const converge = median(operatorRuns.map((r) => r.convergeSeconds));
  const baselineConverge =
    baselineRuns.length > 0 ? median(baselineRuns.map((r) => r.convergeSeconds)) : null;
  const typical = medianRun(operatorRuns);
  const typicalBaseline = medianRun(baselineRuns);

  await mkdir(args.out, { recursive: true });
  const chartPath = join(args.out, `converge-${args.n}.svg`);
  await writeFile(
    chartPath,
    renderConvergeChart({
      title: `${args.n} AgentDeployments created at once; 1000 requests / 10 s; build ${args.buildMs / 1000} s`,
      floor,
      series: [
        ...(typical
          ? [
              {
                label: 'agent-operator',
                color: '#1f77b4',
                readySeconds: typical.readyTimesMs.map((ms) => ms / 1000),
              },
            ]
          : []),
        ...(typicalBaseline
          ? [
              {
                label: 'baseline (GET per object every 5 s, 10 qps)',
                color: '#d62728',
                readySeconds: typicalBaseline.readyTimesMs.map((ms) => ms / 1000),
              },
            ]
          : []),
      ],
    }),
  );

  const report = {
    n: args.n,
    buildMs: args.buildMs,
    concurrency: args.concurrency ?? null,
    latencyMs: args.latencyMs,
    coldKube: args.coldKube,
    allowedPerSecond: ALLOWED_PER_SECOND,
    strictlyNeededCalls: strictlyNeededCalls(args.n),
    floorSeconds: round(floorAt, 3),
    runs: operatorRuns.length,
    convergeSeconds: round(converge, 3),
    convergeSecondsRuns: operatorRuns.map((r) => round(r.convergeSeconds, 3)),
    ratioToFloor: round(converge / floorAt, 3),
    throttled429: operatorRuns.reduce((sum, r) => sum + r.throttled429, 0),
    callsPerDeployment: typical?.callsPerDeployment ?? {},
    operatorCpuSeconds: typical ? round(typical.cpuSeconds, 2) : null,
    baselineRuns: baselineRuns.length,
    baselineConvergeSeconds: baselineConverge === null ? null : round(baselineConverge, 3),
    baselineConvergeSecondsRuns: baselineRuns.map((r) => round(r.convergeSeconds, 3)),
    baselineRatioToFloor: baselineConverge === null ? null : round(baselineConverge / floorAt, 3),
    baselineThrottled429: baselineRuns.reduce((sum, r) => sum + r.throttled429, 0),
    baselineCallsPerDeployment: typicalBaseline?.callsPerDeployment ?? null,
    speedupVsBaseline: baselineConverge === null ? null : round(baselineConverge / converge, 2),
    chart: chartPath,
    machine: { cores: availableParallelism(), node: process.version },
  };

  if (args.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return 0;
  }
  const lines = [
    `N = ${args.n}, limit 1000 requests / 10 s, build ${args.buildMs / 1000} s` +
      (args.latencyMs > 0 ? `, ${args.latencyMs} ms added to every control-plane call` : '') +
      (args.concurrency === undefined ? '' : `, --concurrency ${args.concurrency}`) +
      (args.coldKube ? ', a fresh Kubernetes emulator' : '') +
      `, ${availableParallelism()} cores, node ${process.version}`,
    `floor: (${args.n} POSTs + ${Math.ceil(args.n / 100)} lists) / ${ALLOWED_PER_SECOND}/s + ${args.buildMs / 1000} s = ${floorAt.toFixed(2)} s`,
    `operator: all Ready in ${converge.toFixed(2)} s (median of ${operatorRuns.length}: ${report.convergeSecondsRuns.join(', ')}), ${report.ratioToFloor}x the floor, ${report.throttled429} x 429`,
    `  calls per deployment: ${JSON.stringify(report.callsPerDeployment)}`,
  ];
  if (baselineConverge !== null) {
    lines.push(
      `baseline: all Ready in ${baselineConverge.toFixed(2)} s (median of ${baselineRuns.length}), ${report.baselineRatioToFloor}x the floor, ${report.baselineThrottled429} x 429`,
      `  calls per deployment: ${JSON.stringify(report.baselineCallsPerDeployment)}`,
      `speed-up over the baseline: ${report.speedupVsBaseline}x`,
    );
  }
  lines.push(`chart: ${chartPath}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench:converge: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
