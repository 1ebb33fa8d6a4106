// Phase 4 of bench:data, at the resource level: the operator in its own process (compiled, as it
// ships) against both emulators in theirs. One TraceDeletion of `ids` trace ids, written into
// ConfigMaps of IDS_PER_CONFIG_MAP and named by `traceIdsFrom.configMapKeyRefs`, is created at
// the same moment as `deployments` AgentDeployments; all of them use the operator's default
// connection, so one API key and one rate row (1000 / 10 s) carry every call.
//
// Figures: the deployments' time to all Ready as a ratio to their own floor (bench/converge/
// floor.ts: the bulk deletion must not slow them; target ≤ 1.2), and the deletion's time from
// creation to its recorded submission (status.submittedAt) as a ratio to the floor of the shared
// row: every strictly needed call of both (deployments' calls + delete requests) / rate, since
// all must pass through the same 100 per s (target ≤ 1.1). The operator's heap and RSS after a
// full GC at 10%, 50% and 100% of the batches show whether memory grows with the ids sent.
import { availableParallelism } from 'node:os';
import { floorSeconds, strictlyNeededCalls } from '../converge/floor.js';
import { agentDeployment, benchObjectName, createAll } from '../support/agent-deployments.js';
import type { StatsSnapshot } from '../support/emulator-stats.js';
import { BENCH_NAMESPACE, Emulators } from '../support/emulators.js';
import { OperatorProcess } from '../support/operator-process.js';
import { ReadyTracker } from '../support/ready-tracker.js';
import type { ResourceType } from '../../src/runtime/kube/resource.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import { TRACE_DELETIONS } from '../../src/reconcilers/deletion/setup.js';

/** ~925 KB of uuids and newlines: under a ConfigMap's 1 MiB with room for the object around it. */
export const IDS_PER_CONFIG_MAP = 25_000;
const IDS_PER_REQUEST = 1000;
const ROW_PER_SECOND = 1000 / 10;
/**
 * A 4 s build, bench:converge's default. With a 1 s build the deployments' tail is set by the
 * 2 s poll interval, not by the budget: the deployments alone then miss their floor by as much
 * as with a deletion beside them (docs/benchmarks.md, "Figures behind design comments"), and
 * the ratio would say nothing about the deletion's effect on them.
 */
const REVISION_PHASE_MS = 1000;
/** external_container: four timed revision states before DEPLOYED. */
const BUILD_MS = 4 * REVISION_PHASE_MS;
const TIMEOUT_MS = 300_000;

const CONFIG_MAPS: ResourceType = { group: '', version: 'v1', plural: 'configmaps' };

type TraceDeletionObject = KubeObject & {
  status?: { phase?: string; batchesSent?: number; batchesTotal?: number; submittedAt?: string };
};

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Writes `ids` random uuids into ConfigMaps `erasure-ids-000…`, one held in memory at a time. */
async function writeIdConfigMaps(
  emulators: Emulators,
  ids: number,
): Promise<Array<{ name: string; key: string }>> {
  const refs: Array<{ name: string; key: string }> = [];
  for (let first = 0; first < ids; first += IDS_PER_CONFIG_MAP) {
    const count = Math.min(IDS_PER_CONFIG_MAP, ids - first);
    const name = `erasure-ids-${String(refs.length).padStart(3, '0')}`;
    const text = Array.from({ length: count }, () => crypto.randomUUID()).join('\n');
    await emulators.kube.create(CONFIG_MAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: BENCH_NAMESPACE },
      data: { ids: text },
    });
    refs.push({ name, key: 'ids' });
  }
  return refs;
}

function acceptedDeletes(stats: StatsSnapshot): number {
  return stats.byRoute
    .filter((row) => row.method === 'POST' && row.route === '/runs/delete' && row.status < 300)
    .reduce((total, row) => total + row.count, 0);
}

/**
 * Polls the TraceDeletion until it leaves Submitting, measuring the operator's memory (after a
 * full GC) as the accepted batches pass 10%, 50% and 100% of the total.
 */
async function followDeletion(
  emulators: Emulators,
  operator: OperatorProcess,
  batches: number,
): Promise<{ submittedAt: number; memory: string[] }> {
  const marks = [
    [Math.ceil(batches * 0.1), '10%'],
    [Math.ceil(batches * 0.5), '50%'],
    [batches, '100%'],
  ] as const;
  const memory: string[] = [];
  const deadline = Date.now() + TIMEOUT_MS;
  while (Date.now() < deadline) {
    const object = await emulators.kube.get<TraceDeletionObject>(TRACE_DELETIONS, BENCH_NAMESPACE, 'erasure');
    const sent = object.status?.batchesSent ?? 0;
    while (memory.length < marks.length && sent >= (marks[memory.length]?.[0] ?? Infinity)) {
      const probe = await operator.gcAndMeasure();
      memory.push(`${marks[memory.length]?.[1]} heap ${mb(probe.heapUsedBytes)} RSS ${mb(probe.rssBytes)}`);
    }
    const { phase, submittedAt } = object.status ?? {};
    if (phase === 'Failed') throw new Error(`the TraceDeletion failed: ${JSON.stringify(object.status)}`);
    if (submittedAt !== undefined && memory.length === marks.length) {
      return { submittedAt: Date.parse(submittedAt), memory };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the TraceDeletion was not submitted within ${TIMEOUT_MS / 1000} s`);
}

export async function resourceLevel(ids: number, deployments: number): Promise<void> {
  const emulators = await Emulators.start({
    revisionPhaseMs: REVISION_PHASE_MS,
    // The simulated weekend job would otherwise start removing traces during the run.
    controlPlaneFlags: ['--trace-delete-delay', '1h'],
  });
  let operator: OperatorProcess | undefined;
  let tracker: ReadyTracker | undefined;
  try {
    await emulators.applyCrd('agentplatform.io_tracedeletions.yaml');
    const session = await emulators.api<{ id: string }>('POST', '/api/v1/sessions', { name: 'erasure' });
    const listenerId = await emulators.listenerId();
    const refs = await writeIdConfigMaps(emulators, ids);
    operator = await OperatorProcess.start({
      controlPlaneUrl: emulators.controlPlaneUrl,
      kubeconfigPath: emulators.kubeconfigPath,
      // The erasure runs in the bench namespace, through the default connection.
      flags: ['--data-deletion-namespaces', BENCH_NAMESPACE],
    });
    const idle = await operator.gcAndMeasure();
    tracker = new ReadyTracker(emulators.kube);
    await tracker.start();
    const before = await emulators.admin<StatsSnapshot>('GET', '/stats');
    const objects = Array.from({ length: deployments }, (_, i) =>
      agentDeployment(benchObjectName(i), listenerId),
    );

    const started = Date.now();
    tracker.origin = performance.now();
    const batches = Math.ceil(ids / IDS_PER_REQUEST);
    await emulators.kube.create(TRACE_DELETIONS, {
      apiVersion: 'agentplatform.io/v1alpha1',
      kind: 'TraceDeletion',
      metadata: { name: 'erasure', namespace: BENCH_NAMESPACE },
      spec: { sessionId: session.id, traceIdsFrom: { configMapKeyRefs: refs } },
    });
    const [deletion] = await Promise.all([
      followDeletion(emulators, operator, batches),
      createAll(emulators.kube, objects).then(() => tracker?.waitForReady(deployments, TIMEOUT_MS)),
    ]);
    const after = await emulators.admin<StatsSnapshot>('GET', '/stats');

    const deploymentSeconds = Math.max(...tracker.readyAt.values()) / 1000;
    const deploymentFloor = floorSeconds({
      n: deployments,
      allowedPerSecond: ROW_PER_SECOND,
      buildMs: BUILD_MS,
    });
    const deletionSeconds = (deletion.submittedAt - started) / 1000;
    const sharedFloor = (strictlyNeededCalls(deployments) + batches) / ROW_PER_SECOND;
    process.stdout.write(
      `resource level (operator process, ${availableParallelism()} cores, node ${process.version}): ` +
        `TraceDeletion of ${ids} ids from ${refs.length} ConfigMaps (configMapKeyRefs) beside ${deployments} AgentDeployments, one key\n` +
        `  deployments all Ready in ${deploymentSeconds.toFixed(2)} s, floor ${deploymentFloor.toFixed(2)} s, ` +
        `ratio ${(deploymentSeconds / deploymentFloor).toFixed(3)} (target ≤ 1.2)\n` +
        `  deletion submitted in ${deletionSeconds.toFixed(2)} s (${acceptedDeletes(after) - acceptedDeletes(before)} delete requests accepted), ` +
        `floor of the shared row ${sharedFloor.toFixed(2)} s, ratio ${(deletionSeconds / sharedFloor).toFixed(3)} (target ≤ 1.1)\n` +
        `  ${after.total - before.total} calls, ${after.throttled - before.throttled} answered 429; ` +
        `operator memory after GC: idle heap ${mb(idle.heapUsedBytes)} RSS ${mb(idle.rssBytes)}, ${deletion.memory.join(', ')}; ` +
        `${operator.cpuSeconds().toFixed(1)} CPU seconds\n`,
    );
  } finally {
    await tracker?.stop();
    await operator?.stop();
    await emulators.close();
  }
}
