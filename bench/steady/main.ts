// `npm run bench:steady -- [--n 10000] [--resync-period 1m] [--periods 5] [--touch-rounds 3] [--replay-rounds 0] [--rate-limit 1000/10] [--json]`
// The operator at rest with N settled AgentDeployments (default 10,000) under the published
// limit (1000 requests / 10 s; --rate-limit raises it, so that 100,000 are adopted in minutes): its resident memory after a full GC, its no-op reconcile
// rate per core, and the control-plane calls it makes over one resync period.
//
// 1. Seed (seed.ts): deployments POSTed straight to the emulator with its limit off, objects
//    created with their deployment id; then the published limit is restored.
// 2. Start the operator (its own process), wait until all N are Ready and reconciles stop.
// 3. RSS after GC (the operator's probe runs gc() twice, then reads process.memoryUsage()).
// 4. No-op reconciles: touch an annotation on every object (an update the operator must
//    reconcile, with nothing to do: the observation is fresh and the status unchanged);
//    count reconciles (controller_runtime_reconcile_total) and the operator's CPU seconds
//    (/proc) until all N are done. Rate per core = reconciles / CPU seconds.
//    With --replay-rounds, the operator reaches the emulator through a proxy
//    (watch-replay-proxy.ts) that records the first round's watch events and then writes them into
//    the operator's watch again, round after round, with nothing else running: the same work
//    per event, steadier figures.
// 5. Calls per resync period: emulator stats at the start and end of each of --periods
//    consecutive periods (they grow as the objects' jittered resync times drift apart).
import { availableParallelism } from 'node:os';
import { resolve as resolvePath } from 'node:path';
import { parseArgs } from 'node:util';
import { parseDuration } from '../../src/operator/duration.js';
import { AGENT_DEPLOYMENTS, benchObjectName, inParallel } from '../support/agent-deployments.js';
import { BENCH_NAMESPACE, Emulators } from '../support/emulators.js';
import {
  median,
  round,
  summarizeCalls,
  type CallSummary,
  type StatsSnapshot,
} from '../support/emulator-stats.js';
import type { ProbeAnswer } from '../support/operator-entry.js';
import { allocatedBytes, readAllocationProfile } from '../support/allocation-profile.js';
import { buildOperator, OperatorProcess } from '../support/operator-process.js';
import { ReadyTracker } from '../support/ready-tracker.js';
import { replayRound, TOUCH_ANNOTATION, WatchReplay } from './replay-rounds.js';
import {
  describeRound,
  measureRound,
  overallPerCpuSecond,
  RECONCILES,
  type RoundFigures,
} from './round-figures.js';
import { seedSettledObjects } from './seed.js';

const MB = 1024 * 1024;

const USAGE = `Usage: npm run bench:steady -- [options]

  --n <N>                  settled AgentDeployments (default 10000)
  --resync-period <dur>    the operator's --resync-period, and the window calls are counted over (default 1m)
  --touch-rounds <k>       rounds of no-op reconciles of every object (default 3)
  --replay-rounds <k>      after the touch rounds, rounds that write the first touch round's
                           watch events into the operator's watch again, with the emulators idle:
                           steadier than the touch rounds for comparing two commits (default 0)
  --replay-pace <events/s> write the replayed events this many a second, one per write, as a
                           touch round's arrive (default: all at once)
  --periods <k>            consecutive resync periods whose calls are counted (default 5; 0
                           skips them, e.g. with a long --resync-period so that the informer's
                           resync passes stay out of the rounds)
  --rate-limit <count/s>   the emulator's limit after seeding, and the operator's --rate-limit
                           (default 1000/10, the published limit)
  --cpu-profile <file>     write a CPU profile of the operator over the no-op rounds only (the
                           replayed ones, with --replay-rounds)
  --allocation-profile <file>
                           sample what the operator allocates over the no-op rounds (the
                           replayed ones, with --replay-rounds; written to <file>), and print the
                           bytes a no-op pass allocates: steadier than the CPU rate for
                           comparing two commits (not with --cpu-profile)
  --adoption-cpu-profile <file>
                           write a CPU profile of the operator from its start until all are Ready
  --heap-snapshot <file>   write a heap snapshot of the operator at the end (after the last probe)
  --json                   print one JSON object instead of the text report
  --verbose                echo the operator's log lines to stderr
`;

interface Args {
  n: number;
  resyncPeriod: string;
  resyncPeriodMs: number;
  touchRounds: number;
  replayRounds: number;
  replayPace: number | undefined;
  periods: number;
  rateLimit: { count: number; windowSeconds: number };
  json: boolean;
  verbose: boolean;
  cpuProfile: string | undefined;
  allocationProfile: string | undefined;
  adoptionCpuProfile: string | undefined;
  heapSnapshot: string | undefined;
}

function parse(argv: string[]): Args | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      n: { type: 'string', default: '10000' },
      'resync-period': { type: 'string', default: '1m' },
      'touch-rounds': { type: 'string', default: '3' },
      'replay-rounds': { type: 'string', default: '0' },
      'replay-pace': { type: 'string' },
      periods: { type: 'string', default: '5' },
      'rate-limit': { type: 'string', default: '1000/10' },
      json: { type: 'boolean', default: false },
      'cpu-profile': { type: 'string' },
      'allocation-profile': { type: 'string' },
      'adoption-cpu-profile': { type: 'string' },
      'heap-snapshot': { type: 'string' },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return 'help';
  const integer = (flag: string, text: string, min: number): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min)
      throw new Error(`--${flag}: must be a whole number >= ${min}, got "${text}"`);
    return value;
  };
  const resyncPeriodMs = parseDuration(values['resync-period']);
  if (resyncPeriodMs === undefined || resyncPeriodMs < 10_000) {
    throw new Error(
      `--resync-period: must be a duration of at least 10s such as 2m, got "${values['resync-period']}"`,
    );
  }
  if (values['cpu-profile'] !== undefined && values['allocation-profile'] !== undefined) {
    // One profiler slows the code the other measures.
    throw new Error('--cpu-profile and --allocation-profile: give one of them, not both');
  }
  const [count = '', windowSeconds = ''] = values['rate-limit'].split('/');
  return {
    n: integer('n', values.n, 1),
    rateLimit: {
      count: integer('rate-limit', count, 1),
      windowSeconds: integer('rate-limit', windowSeconds, 1),
    },
    resyncPeriod: values['resync-period'],
    resyncPeriodMs,
    touchRounds: integer('touch-rounds', values['touch-rounds'], 1),
    replayRounds: integer('replay-rounds', values['replay-rounds'], 0),
    replayPace:
      values['replay-pace'] === undefined ? undefined : integer('replay-pace', values['replay-pace'], 1),
    periods: integer('periods', values.periods, 0),
    json: values.json,
    verbose: values.verbose,
    cpuProfile: values['cpu-profile'],
    allocationProfile: values['allocation-profile'],
    adoptionCpuProfile: values['adoption-cpu-profile'],
    heapSnapshot: values['heap-snapshot'],
  };
}

function memoryInMB(answer: ProbeAnswer | undefined): Record<string, number> | null {
  if (!answer) return null;
  const mb = (bytes: number): number => round(bytes / MB, 1);
  return {
    rss: mb(answer.rssBytes),
    heapUsed: mb(answer.heapUsedBytes),
    heapTotal: mb(answer.heapTotalBytes),
    external: mb(answer.externalBytes),
    arrayBuffers: mb(answer.arrayBuffersBytes),
    ...Object.fromEntries(
      Object.entries(answer.spaces).map(([name, [committed]]) => [`committed:${name}`, mb(committed)]),
    ),
  };
}

/** Counters accumulated between two snapshots. */
function difference(after: StatsSnapshot, before: StatsSnapshot): StatsSnapshot {
  const countBefore = (entry: StatsSnapshot['byRoute'][number]): number =>
    before.byRoute.find(
      (b) => b.method === entry.method && b.route === entry.route && b.status === entry.status,
    )?.count ?? 0;
  return {
    total: after.total - before.total,
    throttled: after.throttled - before.throttled,
    byRoute: after.byRoute
      .map((entry) => ({ ...entry, count: entry.count - countBefore(entry) }))
      .filter((entry) => entry.count > 0),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until the reconcile count (of the controller `labels` name, or of all) has not moved
 * for `quietMs`. With `giveUpMs`, stops waiting after that long: the informer's resync
 * reconciles every object once per resync period, so at a short period (20 s at 5,000 objects)
 * the AgentDeployment count never rests for long, and a wait without a bound would never end.
 */
async function waitForQuiet(
  operator: OperatorProcess,
  quietMs: number,
  labels: Record<string, string> = {},
  giveUpMs = Number.POSITIVE_INFINITY,
): Promise<void> {
  const started = performance.now();
  let last = await operator.metric(RECONCILES, labels);
  let quietSince = performance.now();
  for (;;) {
    await sleep(250);
    const count = await operator.metric(RECONCILES, labels);
    if (count !== last) {
      last = count;
      quietSince = performance.now();
    } else if (performance.now() - quietSince >= quietMs) {
      return;
    }
    if (performance.now() - started >= giveUpMs) return;
  }
}

async function progress(message: string): Promise<void> {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${message}\n`);
  await Promise.resolve();
}

function touchRound(
  emulators: Emulators,
  operator: OperatorProcess,
  n: number,
  round_: number,
): Promise<RoundFigures> {
  const names = Array.from({ length: n }, (_, i) => benchObjectName(i));
  // Done when every touched object has been reconciled at least once more.
  return measureRound(operator, n, () =>
    inParallel(names, 32, async (name) => {
      await emulators.kube.mergePatch(AGENT_DEPLOYMENTS, BENCH_NAMESPACE, name, {
        metadata: { annotations: { [TOUCH_ANNOTATION]: String(round_) } },
      });
    }),
  );
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
  const emulators = await Emulators.start({ revisionPhaseMs: 0 });
  let operator: OperatorProcess | undefined;
  let replay: WatchReplay | undefined;
  const tracker = new ReadyTracker(emulators.kube);
  try {
    await progress(`seeding ${args.n} deployments and objects`);
    const seedStart = performance.now();
    await seedSettledObjects(emulators, args.n, args.rateLimit);
    const seedSeconds = (performance.now() - seedStart) / 1000;
    await tracker.start();

    // Compiled before the clock starts: the adoption is the operator's start, not tsc's.
    await buildOperator();
    if (args.replayRounds > 0) replay = await WatchReplay.start(emulators.kubeconfigPath);
    await progress(`starting the operator (--resync-period ${args.resyncPeriod})`);
    const statsAtStart = await emulators.admin<StatsSnapshot>('GET', '/stats');
    tracker.origin = performance.now();
    operator = await OperatorProcess.start({
      controlPlaneUrl: emulators.controlPlaneUrl,
      kubeconfigPath: replay?.kubeconfigPath ?? emulators.kubeconfigPath,
      // The seeded objects carry deployment-id hints, as an operator before ownership records
      // left them: following a hint is adoption, which a platform team upgrading from there
      // permits for its own namespace (the default permits none).
      flags: [
        '--resync-period',
        args.resyncPeriod,
        '--adoption-namespaces',
        BENCH_NAMESPACE,
        '--rate-limit',
        `${args.rateLimit.count}/${args.rateLimit.windowSeconds}`,
      ],
      verbose: args.verbose,
    });
    if (args.adoptionCpuProfile !== undefined) await operator.startCpuProfile();
    await tracker.waitForReady(args.n, 600_000);
    const adoptSeconds = (performance.now() - tracker.origin) / 1000;
    if (args.adoptionCpuProfile !== undefined) {
      await operator.stopCpuProfile(resolvePath(args.adoptionCpuProfile));
      await progress(`CPU profile of the adoption written to ${args.adoptionCpuProfile}`);
    }
    // Until quiet: the adoption, then the tracing-project lookups the adopted objects need
    // (that controller has no resync), then the passes those lookups' status writes caused
    // (bounded by one resync period: past it, the passes are the informer's resync).
    await waitForQuiet(operator, 3_000, { controller: 'tracingproject' });
    await waitForQuiet(operator, 3_000, { controller: 'agentdeployment' }, args.resyncPeriodMs);
    const startSeconds = (performance.now() - tracker.origin) / 1000;
    const startCpuSeconds = operator.cpuSeconds();
    const startPasses = {
      agentdeployment: await operator.metric(RECONCILES, { controller: 'agentdeployment' }),
      tracingproject: await operator.metric(RECONCILES, { controller: 'tracingproject' }),
    };
    const statsAfterAdopt = await emulators.admin<StatsSnapshot>('GET', '/stats');
    const adoptCalls = statsAfterAdopt.total - statsAtStart.total;
    await progress(`all ${args.n} Ready ${adoptSeconds.toFixed(1)} s after start, ${adoptCalls} calls`);
    await progress(
      `quiet ${startSeconds.toFixed(1)} s after start (lookups done): ${startCpuSeconds.toFixed(1)} CPU s, passes ${JSON.stringify(startPasses)}`,
    );

    const rssProbes: number[] = [];
    const memoryProbes: ProbeAnswer[] = [];
    const probe = async (): Promise<void> => {
      const answer = await (operator as OperatorProcess).gcAndMeasure();
      rssProbes.push(answer.rssBytes);
      memoryProbes.push(answer);
      await progress(
        `RSS after GC ${(answer.rssBytes / MB).toFixed(1)} MB (V8 heap used ${(answer.heapUsedBytes / MB).toFixed(1)} of ${(answer.heapTotalBytes / MB).toFixed(1)} MB, external ${(answer.externalBytes / MB).toFixed(1)} MB)`,
      );
    };
    await probe();

    const rounds: RoundFigures[] = [];
    // The profiles cover the rounds measured most steadily: the replayed ones when there are.
    const startProfiles = async (): Promise<number> => {
      const current = operator as OperatorProcess;
      if (args.cpuProfile !== undefined) await current.startCpuProfile();
      if (args.allocationProfile !== undefined) await current.startAllocationProfile();
      return current.metric(RECONCILES);
    };
    let reconcilesBeforeRounds = replay === undefined ? await startProfiles() : 0;
    for (let i = 1; i <= args.touchRounds; i += 1) {
      if (i === 1) replay?.proxy.startRecording();
      const result = await touchRound(emulators, operator, args.n, i);
      rounds.push(result);
      await progress(describeRound(`no-op round ${i}`, result));
      // The round's last passes; at a short resync period the resync's own no-op passes may
      // fall into the next round, and are counted there as what they are: no-op passes.
      await waitForQuiet(operator, 2_000, { controller: 'agentdeployment' }, args.resyncPeriodMs);
      if (i === 1) replay?.keepRound(args.n);
    }
    const replayed: RoundFigures[] = [];
    if (replay !== undefined) reconcilesBeforeRounds = await startProfiles();
    for (let i = 1; replay !== undefined && i <= args.replayRounds; i += 1) {
      const result = await replayRound(replay, operator, args.n, i, args.replayPace);
      replayed.push(result);
      await progress(describeRound(`replayed round ${i}`, result));
      await waitForQuiet(operator, 2_000, { controller: 'agentdeployment' }, args.resyncPeriodMs);
    }
    if (args.cpuProfile !== undefined) {
      await operator.stopCpuProfile(resolvePath(args.cpuProfile));
      await progress(`CPU profile of the no-op rounds written to ${args.cpuProfile}`);
    }
    let allocatedKBPerPass: number | null = null;
    if (args.allocationProfile !== undefined) {
      const passes = (await operator.metric(RECONCILES)) - reconcilesBeforeRounds;
      const file = resolvePath(args.allocationProfile);
      await operator.stopAllocationProfile(file);
      allocatedKBPerPass = round(allocatedBytes(await readAllocationProfile(file)) / passes / 1000, 1);
      await progress(`allocation profile of the no-op rounds written to ${args.allocationProfile}`);
    }
    await probe();

    await progress(
      `counting control-plane calls over ${args.periods} resync periods of ${args.resyncPeriod}`,
    );
    const periods: CallSummary[] = [];
    const reconcilesBefore = await operator.metric(RECONCILES);
    const cpuBefore = operator.cpuSeconds();
    let statsBefore = await emulators.admin<StatsSnapshot>('GET', '/stats');
    for (let i = 1; i <= args.periods; i += 1) {
      await sleep(args.resyncPeriodMs);
      const statsAfter = await emulators.admin<StatsSnapshot>('GET', '/stats');
      const period = summarizeCalls(difference(statsAfter, statsBefore), args.n);
      periods.push(period);
      statsBefore = statsAfter;
      await progress(`period ${i}: ${period.total} calls, ${period.throttled429} x 429`);
    }
    const reconcilesPerPeriod =
      ((await operator.metric(RECONCILES)) - reconcilesBefore) / Math.max(args.periods, 1);
    const idleCpuSeconds = operator.cpuSeconds() - cpuBefore;
    await probe();
    // Last: writing a snapshot grows the process, which no probe should see.
    if (args.heapSnapshot !== undefined) {
      await operator.writeHeapSnapshot(resolvePath(args.heapSnapshot));
      await progress(`heap snapshot written to ${args.heapSnapshot}`);
    }
    const allowedPerSecond = args.rateLimit.count / args.rateLimit.windowSeconds;
    const budgetPerPeriod = (allowedPerSecond * args.resyncPeriodMs) / 1000;
    const worst = periods.reduce<CallSummary | undefined>(
      (a, b) => (a === undefined || b.total > a.total ? b : a),
      undefined,
    );

    const report = {
      n: args.n,
      seedSeconds: round(seedSeconds, 1),
      adoptSeconds: round(adoptSeconds, 1),
      adoptCalls,
      startSeconds: round(startSeconds, 1),
      startCpuSeconds: round(startCpuSeconds, 2),
      startPasses,
      rssAfterGcMB: round(Math.max(...rssProbes) / MB, 1),
      rssAfterGcMBProbes: rssProbes.map((bytes) => round(bytes / MB, 1)),
      rssSettledMB: round((rssProbes[rssProbes.length - 1] ?? 0) / MB, 1),
      memoryAtLastProbe: memoryInMB(memoryProbes[memoryProbes.length - 1]),
      noopReconcilesPerCpuSecond: median(rounds.map((r) => r.perCpuSecond)),
      noopReconcilesPerSecond: median(rounds.map((r) => r.perSecond)),
      /** All the rounds' passes over all their CPU seconds. */
      noopReconcilesPerCpuSecondOverall: overallPerCpuSecond(rounds),
      noopRounds: rounds,
      /** With --replay-rounds: the rate over the replayed rounds (median), and each round. */
      replayedReconcilesPerCpuSecond:
        replayed.length === 0 ? null : median(replayed.map((r) => r.perCpuSecond)),
      replayedReconcilesPerCpuSecondOverall: overallPerCpuSecond(replayed),
      replayedRounds: replayed,
      /** With --allocation-profile: kilobytes allocated per pass of the no-op rounds (sampled). */
      noopAllocatedKBPerPass: allocatedKBPerPass,
      resyncPeriodSeconds: args.resyncPeriodMs / 1000,
      /** The largest count over the periods measured (they grow as resync times drift apart). */
      callsPerResyncPeriod: worst?.total ?? null,
      callsPerResyncPeriodEach: periods.map((period) => period.total),
      callsPerResyncPeriodByRoute: worst?.callsByRoute ?? null,
      throttled429InPeriods: periods.reduce((sum, period) => sum + period.throttled429, 0),
      shareOfBudget: worst === undefined ? null : round(worst.total / budgetPerPeriod, 5),
      reconcilesPerPeriod: args.periods === 0 ? null : reconcilesPerPeriod,
      idleCpuShare:
        args.periods === 0 ? null : round(idleCpuSeconds / ((args.periods * args.resyncPeriodMs) / 1000), 4),
      // Every 429 since the emulators started (statsBefore is the last snapshot by now).
      throttled429: statsBefore.throttled,
      machine: { cores: availableParallelism(), node: process.version },
    };
    if (args.json) {
      process.stdout.write(`${JSON.stringify(report)}\n`);
    } else {
      process.stdout.write(
        [
          `N = ${args.n} settled AgentDeployments, limit ${args.rateLimit.count} requests / ${args.rateLimit.windowSeconds} s, ${availableParallelism()} cores, node ${process.version}`,
          `seeded in ${report.seedSeconds} s; the operator adopted all in ${report.adoptSeconds} s with ${adoptCalls} calls`,
          `quiet (tracing projects recorded) ${report.startSeconds} s after start, ${report.startCpuSeconds} CPU s, passes ${JSON.stringify(startPasses)}`,
          `RSS after GC: ${report.rssAfterGcMB} MB (max of probes ${report.rssAfterGcMBProbes.join(', ')} MB); at the last probe ${JSON.stringify(report.memoryAtLastProbe)}`,
          `no-op reconciles: ${report.noopReconcilesPerCpuSecond} per CPU-second (median of ${rounds.length} rounds; ${report.noopReconcilesPerCpuSecondOverall} over all of them), ${report.noopReconcilesPerSecond}/s wall`,
          ...(report.replayedReconcilesPerCpuSecond === null
            ? []
            : [
                `replayed no-op reconciles: ${report.replayedReconcilesPerCpuSecond} per CPU-second (median of ${replayed.length} rounds; ${report.replayedReconcilesPerCpuSecondOverall} over all of them)`,
              ]),
          ...(allocatedKBPerPass === null
            ? []
            : [`allocated per no-op pass: ${allocatedKBPerPass} KB (sampled over the rounds' passes)`]),
          ...(worst === undefined || report.shareOfBudget === null || report.idleCpuShare === null
            ? [`429s: ${report.throttled429}`]
            : [
                `calls per resync period (${report.resyncPeriodSeconds} s): ${report.callsPerResyncPeriodEach.join(', ')}; the largest, ${worst.total}, is ${(report.shareOfBudget * 100).toFixed(2)}% of the budget; ${JSON.stringify(worst.callsByRoute)}`,
                `reconciles per period: ${reconcilesPerPeriod}; operator CPU while idle: ${(report.idleCpuShare * 100).toFixed(2)}% of a core; 429s: ${report.throttled429}`,
              ]),
        ].join('\n') + '\n',
      );
    }
    return 0;
  } finally {
    await tracker.stop();
    await operator?.stop();
    await replay?.close();
    await emulators.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench:steady: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
