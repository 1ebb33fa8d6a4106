// One chaos run: both emulators in this process, the operator as a child process, a random
// workload and random faults for the fault phase, then a settle period, then the invariants.
// Returns everything the summary prints and the test asserts; it throws only when the run
// itself could not be carried out (not when an invariant fails).
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import type { ResourceType } from '../../src/runtime/kube/resource.js';
import { API_KEY, Stack } from '../operator/harness.js';
import type { ChaosConfig } from './config.js';
import { FaultInjector, sleep, type FaultKind } from './faults.js';
import { awaitConvergence, type InvariantResult } from './invariants.js';
import { LeaderChaos, type LeaderFaultRecord } from './leader-faults.js';
import { LeaseWatch } from './lease-watch.js';
import { judgeMemory, type MemoryVerdict } from './memory.js';
import { OperatorProcess, type UnexpectedExit } from './operator-process.js';
import { SeededRandom } from './random.js';
import { RateWatch } from './rate-watch.js';
import { Replicas } from './replicas.js';
import { checkSecrecy } from './secrecy.js';
import { Workload, type WorkloadCounts } from './workload.js';
import { checkWritesUnderLease, WriteJournal } from './write-journal.js';

/** Each revision state lasts this long: a container rollout takes about 200 ms. */
const REVISION_PHASE_MS = 50;
const RSS_SAMPLE_EVERY_MS = 1_000;
const CRDS: ResourceType = { group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions' };
const CRD_NAME = 'agentdeployments.agentplatform.io';
const CRD_FILE = new URL('../../crds/agentplatform.io_agentdeployments.yaml', import.meta.url);

export interface ChaosOutcome {
  config: ChaosConfig;
  /** The operator's log (every process) and the workload's journal are written here. */
  logDir: string;
  faultPhaseMs: number;
  settleMs: number;
  workload: WorkloadCounts & { liveAtEnd: number };
  faults: Map<FaultKind, number>;
  operator: {
    starts: number;
    kills: number;
    warnings: number;
    shutdown?: { code: number | null; signal: NodeJS.Signals | null; forced: boolean };
  };
  requests: {
    total: number;
    throttled: number;
    injected429: number;
    limiter429: number;
    /** Most requests counted in one of the emulator's windows, and the limit per window. */
    peakPerWindow: number;
    limitPerWindow: number;
  };
  convergence: InvariantResult[];
  /** The first look, right after the faults stopped: what was still on its way then. */
  atFaultStop: InvariantResult[];
  secrecy: InvariantResult;
  crashes: { unexpectedExits: UnexpectedExit[]; crashLines: string[] };
  memory: MemoryVerdict;
  /** Two replicas only: each leader fault and its hand-over, and the lease-holder checks. */
  leadership?: {
    faults: LeaderFaultRecord[];
    invariants: InvariantResult[];
    transitions: number;
    /** The busiest window's control-plane calls, sliding, by replica. */
    busiest?: { startMs: number; total: number; byCaller: Map<string, number> };
  };
}

export async function runChaos(config: ChaosConfig, progress: (line: string) => void): Promise<ChaosOutcome> {
  const random = new SeededRandom(config.seed);
  const journal = new WriteJournal();
  const stack = await Stack.start({
    withoutOperator: true,
    controlPlane: { rateLimit: config.rateLimit, revisionPhaseMs: REVISION_PHASE_MS, onApiRequest: journal.record },
  });
  const logDir = await mkdtemp(join(tmpdir(), 'agent-operator-chaos-'));
  const launch = {
    kubeconfigPath: stack.kube.kubeconfigPath ?? '',
    controlPlaneUrl: stack.controlPlane.url,
    apiKey: API_KEY,
    rateLimit: config.rateLimit,
  };
  // One replica (the operator killed at random) or two with leader election (the leader
  // killed, paused, cut off from lease renewals).
  const replicas = config.replicas === 2 ? new Replicas(launch, logDir) : undefined;
  const operator = replicas ? undefined : new OperatorProcess({ ...launch, logPath: join(logDir, 'operator.log') });
  const logPaths = replicas ? replicas.logPaths : [join(logDir, 'operator.log')];
  const leases = new LeaseWatch(stack);
  let sampler: NodeJS.Timeout | undefined;
  const rateWatch = new RateWatch(stack, config.rateLimit.windowSeconds * 1000);
  try {
    const listenerId = await stack.listenerId();
    const workload = new Workload(stack, listenerId, random.fork('workload'), config);

    const runStart = Date.now();
    const faultPhaseEnd = runStart + config.faultPhaseMs;
    const running = (): boolean => Date.now() < faultPhaseEnd;
    const faults = new FaultInjector(stack, running);
    if (replicas) {
      // The CRD installed late: both replicas start without it and must pick it up.
      await stack.client.delete(CRDS, undefined, CRD_NAME);
      leases.start();
      replicas.startAll();
      await sleep(random.int(2_000, 5_000));
      await stack.client.create(CRDS, yaml.load(await readFile(CRD_FILE, 'utf8')) as KubeObject);
      faults.note('crd-late');
    } else {
      operator?.start();
    }
    await workload.seedSecrets();
    rateWatch.start();
    sampler = setInterval(() => (replicas ? replicas.sampleRss() : void operator?.sampleRss()), RSS_SAMPLE_EVERY_MS);

    progress(
      `fault phase: ${config.faultPhaseMs / 1000} s (operator kills in the first ${config.killsUntilMs / 1000} s` +
        `${replicas ? '; two replicas: leader killed, paused past its lease, lease renewals failed' : ''})`,
    );
    const leaderChaos = replicas
      ? new LeaderChaos(stack, replicas, leases, faults, random.fork('leader-faults'))
      : undefined;
    await Promise.all([
      runWorkload(workload, random.fork('workload-pace'), running),
      faults.runControlPlane(random.fork('control-plane-faults')),
      faults.runKube(random.fork('kube-faults')),
      leaderChaos
        ? leaderChaos.run(running, runStart + config.killsUntilMs)
        : operator
          ? runKills(operator, random.fork('kills'), runStart + config.killsUntilMs, faults)
          : Promise.resolve(),
      reportProgress(workload, () => replicas?.kills ?? operator?.kills ?? 0, running, progress),
    ]);
    const faultPhaseMs = Date.now() - runStart;
    progress(`faults stopped after ${(faultPhaseMs / 1000).toFixed(1)} s; waiting for convergence`);

    const { results, waitedMs, atFaultStop } = await awaitConvergence(
      stack,
      workload,
      config.settleTimeoutMs,
    );
    const quietSuspended = await checkSuspendedQuiet(stack, workload);
    await writeFile(join(logDir, 'workload.log'), `${workload.journal.join('\n')}\n`);
    await writeFile(join(logDir, 'calls.log'), journal.lines());
    progress(`settled in ${(waitedMs / 1000).toFixed(1)} s`);
    // A few more samples of a quiet operator: the end of the survivor's life is at rest.
    await sleep(3 * RSS_SAMPLE_EVERY_MS);
    clearInterval(sampler);
    sampler = undefined;
    const runEnd = Date.now();
    rateWatch.stop();

    // The survivor's log is complete only once it has stopped; the lease's last record too.
    await (replicas ? replicas.stopAll() : operator?.stop());
    await sleep(300);
    leases.stop();
    const secrecy = await checkSecrecy(stack, logPaths, workload.everySecretValue, API_KEY);
    const stats = await stack.admin<StatsWithRoutes>('GET', '/stats');
    const starts = replicas?.starts ?? operator?.starts ?? 0;
    const stalledCost = checkStalledCost(stats, workload, starts, Date.now() - runStart);
    leaderChaos?.countWritesAfterResume(journal);
    const processes = replicas ?? operator;
    return {
      config,
      logDir,
      faultPhaseMs,
      settleMs: waitedMs,
      workload: { ...workload.counts, liveAtEnd: workload.live().length },
      faults: faults.counts,
      operator: {
        starts,
        kills: processes?.kills ?? 0,
        warnings: processes?.warnings ?? 0,
        shutdown: processes?.shutdown,
      },
      requests: {
        total: stats.total,
        throttled: stats.throttled,
        injected429: faults.injected429,
        limiter429: stats.throttled - faults.injected429,
        peakPerWindow: rateWatch.peak,
        limitPerWindow: config.rateLimit.count,
      },
      convergence: [...results, quietSuspended, stalledCost],
      atFaultStop,
      secrecy,
      crashes: {
        unexpectedExits: processes?.unexpectedExits ?? [],
        crashLines: processes?.crashLines ?? [],
      },
      memory: judgeMemory(replicas ? replicas.survivorSamples() : (operator?.rssSamples ?? []), runStart, runEnd),
      ...(leaderChaos
        ? {
            leadership: {
              faults: leaderChaos.records,
              invariants: [checkWritesUnderLease(journal, leases), leaderChaos.pausedLeadersSilent()],
              busiest: journal.busiest(config.rateLimit.windowSeconds * 1000),
              transitions: new Set(leases.records.filter((r) => r.holder !== '').map((r) => `${r.holder} ${r.acquireTime}`)).size,
            },
          }
        : {}),
    };
  } finally {
    if (sampler) clearInterval(sampler);
    rateWatch.stop();
    leases.stop();
    await (replicas ? replicas.stopAll() : operator?.stop());
    await stack.close();
  }
}

interface StatsWithRoutes {
  total: number;
  throttled: number;
  byRoute: Array<{ method: string; route: string; status: number; count: number }>;
}

/**
 * A rejected create is sent again only when its spec changes (never, here), after a restart
 * whose status write had not landed, or at the slow re-check (2 minutes, doubling): so each
 * rejected object costs at most one POST per operator start plus one per two minutes.
 * Before issue 13 it cost about 100 a second.
 */
function checkStalledCost(
  stats: StatsWithRoutes,
  workload: Workload,
  operatorStarts: number,
  runMs: number,
): InvariantResult {
  const refused = stats.byRoute
    .filter(
      (row) =>
        row.method === 'POST' &&
        row.route === '/v2/deployments' &&
        (row.status === 400 || row.status === 422),
    )
    .reduce((sum, row) => sum + row.count, 0);
  const rejected = workload.counts.rejectedCreated;
  const allowed = rejected * (operatorStarts + 1 + Math.ceil(runMs / 120_000));
  return {
    name: 'each rejected object costs at most one create per operator start and per slow re-check',
    ok: refused <= allowed,
    problems:
      refused <= allowed
        ? []
        : [`${refused} refused creates for ${rejected} rejected objects (at most ${allowed})`],
  };
}

/** Suspended objects make no control-plane write: their deployments do not change while watched. */
async function checkSuspendedQuiet(stack: Stack, workload: Workload): Promise<InvariantResult> {
  const suspended = new Set(
    workload
      .live()
      .filter((object) => object.suspended)
      .map((object) => object.name),
  );
  const snapshot = async (): Promise<Map<string, string>> =>
    new Map(
      (await stack.deployments())
        .filter((deployment) => suspended.has(deployment.name))
        .map((deployment) => [
          deployment.name,
          `${deployment.updated_at} ${deployment.latest_revision_id ?? ''}`,
        ]),
    );
  const before = await snapshot();
  await sleep(3_000);
  const after = await snapshot();
  const problems = [...before]
    .filter(([name, seen]) => after.get(name) !== seen)
    .map(([name]) => `${name}: its deployment changed while suspended`);
  return { name: 'suspended objects make no control-plane write', ok: problems.length === 0, problems };
}

async function runWorkload(workload: Workload, random: SeededRandom, running: () => boolean): Promise<void> {
  while (running()) {
    await workload.step();
    await sleep(random.int(100, 700));
  }
}

/** SIGKILL at random moments, then a new process after a random pause (sometimes none). */
async function runKills(
  operator: OperatorProcess,
  random: SeededRandom,
  killsUntil: number,
  faults: FaultInjector,
): Promise<void> {
  const longRun = killsUntil - Date.now() > 60_000;
  for (let restarts = 0; ; restarts++) {
    await sleep(longRun ? random.int(5_000, 30_000) : random.int(3_000, 8_000));
    if (Date.now() >= killsUntil) return;
    await operator.kill();
    await sleep(random.int(0, 1_500));
    // Every run meets a start-up on a bad day at least once: the first restart has one.
    const burst = restarts === 0 || random.chance(0.4);
    const burstMs = random.int(2_000, 5_000);
    const status = random.chance(0.5) ? 503 : 429;
    operator.start();
    if (burst) await faults.startBurst(burstMs, status);
  }
}

async function reportProgress(
  workload: Workload,
  kills: () => number,
  running: () => boolean,
  progress: (line: string) => void,
): Promise<void> {
  let last = Date.now();
  while (running()) {
    await sleep(1_000);
    if (Date.now() - last < 30_000) continue;
    last = Date.now();
    const c = workload.counts;
    progress(
      `  ... ${workload.live().length} live, ${c.created} created, ${c.imageChanges + c.secretRotations} changes, ` +
        `${c.deletedWithDelete + c.deletedWithOrphan} deleted, ${kills()} kills`,
    );
  }
}
