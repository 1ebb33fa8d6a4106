// One convergence run of one strategy: fresh emulators (child processes), the strategy's
// process started and synced, then N AgentDeployments created at once; the clock starts
// just before the first create and stops when the last object is seen Ready.
import { join } from 'node:path';
import { agentDeployment, benchObjectName, createAll } from '../support/agent-deployments.js';
import { CreationStages } from '../support/creation-stages.js';
import { BENCH_API_KEY, Emulators } from '../support/emulators.js';
import { summarizeCalls, type CallSummary, type StatsSnapshot } from '../support/emulator-stats.js';
import { warmUpKubeEmulator } from '../support/kube-emulator-warm-up.js';
import { OperatorProcess } from '../support/operator-process.js';
import { cpuSecondsOf, ROOT, spawnTsNode, type NodeProcess } from '../support/processes.js';
import { ReadyTracker } from '../support/ready-tracker.js';

export type Strategy = 'operator' | 'baseline';

export interface StrategyRunOptions {
  strategy: Strategy;
  n: number;
  /** Revision phase of the emulator; external_container revisions take 4 phases. */
  revisionPhaseMs: number;
  timeoutMs: number;
  /** Extra `agent-operator run` flags for the operator strategy. */
  operatorFlags?: string[];
  verbose?: boolean;
  /** Where the operator strategy writes a CPU profile of itself from the first create until all are Ready. */
  cpuProfile?: string;
  /** Record when each object passed each stage of its creation (creation-stages.ts). */
  stages?: boolean;
  /** Added to every control-plane call through the emulator's fault API (0: none). */
  controlPlaneLatencyMs?: number;
  /** Skip the Kubernetes emulator's warm-up (kube-emulator-warm-up.ts). */
  coldKube?: boolean;
}

export interface StrategyRun extends CallSummary {
  strategy: Strategy;
  n: number;
  convergeSeconds: number;
  /** When each object was first seen Ready, ms after the first create, ascending. */
  readyTimesMs: number[];
  createSeconds: number;
  /** CPU seconds of the strategy's process during the run. */
  cpuSeconds: number;
  /** With `stages`: how many objects had passed each stage, every half second. */
  stages?: string[];
}

interface StrategyProcess {
  pid: number;
  stop(): Promise<void>;
}

/** Profiles `strategy` over `during` when asked to (the operator only: the baseline has no probe). */
async function profiled<R>(
  strategy: StrategyProcess,
  file: string | undefined,
  during: () => Promise<R>,
): Promise<R> {
  if (file === undefined || !(strategy instanceof OperatorProcess)) return during();
  await strategy.startCpuProfile();
  const result = await during();
  await strategy.stopCpuProfile(file);
  return result;
}

async function startStrategy(options: StrategyRunOptions, emulators: Emulators): Promise<StrategyProcess> {
  if (options.strategy === 'operator') {
    return OperatorProcess.start({
      controlPlaneUrl: emulators.controlPlaneUrl,
      kubeconfigPath: emulators.kubeconfigPath,
      flags: options.operatorFlags ?? [],
      verbose: options.verbose ?? false,
    });
  }
  const baseline: NodeProcess = spawnTsNode(
    join(ROOT, 'bench/converge/baseline/entry.ts'),
    [emulators.kubeconfigPath, emulators.controlPlaneUrl],
    { env: { AGENT_OPERATOR_API_KEY: BENCH_API_KEY } },
  );
  await baseline.waitForLine(
    (line) => (line.includes('baseline started') ? line : undefined),
    'the baseline',
  );
  return baseline;
}

export async function runStrategy(options: StrategyRunOptions): Promise<StrategyRun> {
  const emulators = await Emulators.start({ revisionPhaseMs: options.revisionPhaseMs });
  let strategy: StrategyProcess | undefined;
  const tracker = new ReadyTracker(emulators.kube);
  try {
    // Before the strategy starts, which would reconcile the warm-up's objects.
    if (options.coldKube !== true) await warmUpKubeEmulator(emulators.kube);
    strategy = await startStrategy(options, emulators);
    const listenerId = await emulators.listenerId();
    // Count only the strategy's calls: the reset clears the counters (listener ids are stable).
    await emulators.admin('POST', '/reset');
    // After the reset, which clears faults too: a rule with no method or route matches every call.
    const latencyMs = options.controlPlaneLatencyMs ?? 0;
    if (latencyMs > 0) await emulators.admin('POST', '/faults', { latencyMs });
    const objects = Array.from({ length: options.n }, (_, i) =>
      agentDeployment(benchObjectName(i), listenerId),
    );
    const stages = options.stages ? new CreationStages() : undefined;
    if (stages) tracker.onObject = (object, atMs) => stages.record(object, atMs);
    await tracker.start();
    const cpuBefore = cpuSecondsOf(strategy.pid);
    let createSeconds = 0;
    await profiled(strategy, options.cpuProfile, async () => {
      tracker.origin = performance.now();
      await createAll(emulators.kube, objects);
      createSeconds = (performance.now() - tracker.origin) / 1000;
      await tracker.waitForReady(options.n, options.timeoutMs);
    });
    const cpuSeconds = cpuSecondsOf(strategy.pid) - cpuBefore;
    const stats = await emulators.admin<StatsSnapshot>('GET', '/stats');
    const readyTimesMs = tracker.sortedReadyTimes();
    return {
      strategy: options.strategy,
      n: options.n,
      convergeSeconds: (readyTimesMs[readyTimesMs.length - 1] ?? 0) / 1000,
      readyTimesMs,
      createSeconds,
      cpuSeconds,
      ...(stages ? { stages: stages.table(options.n) } : {}),
      ...summarizeCalls(stats, options.n),
    };
  } finally {
    await tracker.stop();
    await strategy?.stop();
    await emulators.close();
  }
}
