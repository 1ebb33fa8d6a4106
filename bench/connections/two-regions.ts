// Two connections, each with its own key and control plane (a US one at the published
// 1000/10 and an EU one whose key is held to a lower limit, so that it is saturated the whole
// run), N AgentDeployments on each, one operator process. Each connection has its own budget,
// observation cache and poller, so the EU key's queue must not slow the US objects: each
// connection converges close to its own rate floor. Prints, per connection: time to converge,
// its floor, their ratio (target ≤ 1.1), calls and 429s on its control plane.
//
//   npx tsx bench/connections/two-regions.ts [--n 1000] [--us-rate-limit 1000/10] [--eu-rate-limit 200/10] [--revision-phase-ms 250] [--concurrency N] [--projects-wait-s 120] [--timeline] [--stages] [--cold-kube] [--cpu-profile <file>]
import { cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import type { ResourceType } from '../../src/runtime/kube/resource.js';
import { floorSeconds } from '../converge/floor.js';
import { agentDeployment, createAll } from '../support/agent-deployments.js';
import { CreationStages } from '../support/creation-stages.js';
import { summarizeCalls, type StatsSnapshot } from '../support/emulator-stats.js';
import { applyCrd, BENCH_API_KEY, BENCH_NAMESPACE, Emulators } from '../support/emulators.js';
import { warmUpKubeEmulator } from '../support/kube-emulator-warm-up.js';
import { OperatorProcess } from '../support/operator-process.js';
import { cpuSecondsOf } from '../support/processes.js';
import { ReadyTracker } from '../support/ready-tracker.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '1000' },
    'us-rate-limit': { type: 'string', default: '1000/10' },
    'eu-rate-limit': { type: 'string', default: '200/10' },
    'revision-phase-ms': { type: 'string', default: '250' },
    'timeout-s': { type: 'string', default: '900' },
    /** The operator's --concurrency; its own default when absent. */
    concurrency: { type: 'string' },
    /** Objects on the EU connection (default --n); 0 gives the US objects' figure alone, the control. */
    'eu-n': { type: 'string' },
    /** After all are Ready, wait up to this long for the US objects' tracing projects, and print when they were recorded. */
    'projects-wait-s': { type: 'string', default: '0' },
    /** Print each region's calls per second while the run lasts. */
    timeline: { type: 'boolean', default: false },
    /** Print, every half second, how many of each region's objects had passed each stage of their creation. */
    stages: { type: 'boolean', default: false },
    /** Skip the Kubernetes emulator's warm-up (kube-emulator-warm-up.ts): its first seconds as a fresh process. */
    'cold-kube': { type: 'boolean', default: false },
    /** Write a CPU profile of the operator from the first create until every US object is Ready. */
    'cpu-profile': { type: 'string' },
  },
});
const n = Number(values.n);
const euN = values['eu-n'] === undefined ? n : Number(values['eu-n']);
const revisionPhaseMs = Number(values['revision-phase-ms']);
const SECRETS: ResourceType = { group: '', version: 'v1', plural: 'secrets' };
const PLATFORM_CONNECTIONS: ResourceType = {
  group: 'agentplatform.io',
  version: 'v1alpha1',
  plural: 'platformconnections',
};

interface Region {
  name: 'us' | 'eu';
  rateLimit: string;
  emulators: Emulators;
}

function ratePerSecond(rateLimit: string): number {
  const [count, windowSeconds] = rateLimit.split('/').map(Number) as [number, number];
  return count / windowSeconds;
}

/** How many US objects' tracing projects the tracker has seen recorded. */
function usProjectsOf(tracker: ReadyTracker): number {
  return [...tracker.tracingProjectAt.keys()].filter((name) => name.startsWith('us-')).length;
}

async function waitForReadyConnections(kube: Emulators['kube'], names: string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const list = await kube.list<
      KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }
    >(PLATFORM_CONNECTIONS, { namespace: BENCH_NAMESPACE });
    const ready = list.items.filter((c) =>
      c.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True'),
    );
    if (names.every((name) => ready.some((c) => c.metadata.name === name))) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the connections did not become Ready within 60 s');
}

/**
 * CPU seconds so far of each process on the machine's cores during a run: the operator shares
 * them with the emulators and this process (the cluster's API server is on other machines in
 * production), and its rate depends on what they leave it.
 */
function processCpuSeconds(
  operator: OperatorProcess,
  cluster: Emulators,
  regions: Region[],
): Array<[string, number]> {
  const self = process.cpuUsage();
  return [
    ['operator', operator.cpuSeconds()],
    ['Kubernetes emulator', cpuSecondsOf(cluster.kubeProcess.pid)],
    ...regions.map((region): [string, number] => [
      `${region.name.toUpperCase()} control plane`,
      cpuSecondsOf(region.emulators.controlPlaneProcess.pid),
    ]),
    ['this process', (self.user + self.system) / 1e6],
  ];
}

/** Every second, each region's calls in that second and Ready objects so far, on stderr. */
function sampleCalls(regions: Region[]): { stop: () => void } {
  let last = regions.map(() => 0);
  let second = 0;
  const timer = setInterval(() => {
    second += 1;
    void Promise.all(regions.map((region) => region.emulators.admin<StatsSnapshot>('GET', '/stats'))).then(
      (stats) => {
        const totals = stats.map((snapshot) => snapshot.total);
        const deltas = totals.map((total, i) => total - (last[i] ?? 0));
        last = totals;
        console.error(`${second}s ${regions.map((r, i) => `${r.name} ${deltas[i]}/s`).join(' ')}`);
      },
    );
  }, 1000);
  return { stop: () => clearInterval(timer) };
}

async function main(): Promise<void> {
  const regions: Region[] = [];
  let operator: OperatorProcess | undefined;
  let tracker: ReadyTracker | undefined;
  try {
    for (const [name, rateLimit] of [
      ['us', values['us-rate-limit']],
      ['eu', values['eu-rate-limit']],
    ] as const) {
      regions.push({ name, rateLimit, emulators: await Emulators.start({ revisionPhaseMs, rateLimit }) });
    }
    const [us] = regions;
    if (us === undefined) throw new Error('no US region');
    // The cluster is the US pair's Kubernetes emulator; the EU pair contributes its control plane.
    const kube = us.emulators.kube;
    // Before the operator starts, which would reconcile the warm-up's objects.
    if (!values['cold-kube']) await warmUpKubeEmulator(kube);
    for (const plural of ['platformconnections', 'clusterplatformconnections']) {
      await applyCrd(kube, `agentplatform.io_${plural}.yaml`);
    }
    await kube.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'workspace-key', namespace: BENCH_NAMESPACE },
      data: { apiKey: Buffer.from(BENCH_API_KEY).toString('base64') },
    });
    for (const region of regions) {
      await kube.create(PLATFORM_CONNECTIONS, {
        apiVersion: 'agentplatform.io/v1alpha1',
        kind: 'PlatformConnection',
        metadata: { name: region.name, namespace: BENCH_NAMESPACE },
        spec: {
          controlPlaneUrl: region.emulators.controlPlaneUrl,
          // The emulator serves the platform data API on the same address (tracing projects).
          platformApiUrl: region.emulators.controlPlaneUrl,
          apiKeySecretRef: { name: 'workspace-key', key: 'apiKey' },
          rateLimits: {
            default: {
              count: Number(region.rateLimit.split('/')[0]),
              windowSeconds: Number(region.rateLimit.split('/')[1]),
            },
          },
        },
      });
    }
    operator = await OperatorProcess.start({
      controlPlaneUrl: us.emulators.controlPlaneUrl,
      kubeconfigPath: us.emulators.kubeconfigPath,
      flags: [
        '--rate-limit',
        us.rateLimit,
        // The EU PlatformConnection points at its emulator on loopback: a tenant-chosen URL.
        '--allow-private-networks',
        ...(values.concurrency === undefined ? [] : ['--concurrency', values.concurrency]),
      ],
    });
    await waitForReadyConnections(
      kube,
      regions.map((r) => r.name),
    );
    const listeners = await Promise.all(regions.map((region) => region.emulators.listenerId()));
    for (const region of regions) await region.emulators.admin('POST', '/reset');

    tracker = new ReadyTracker(kube);
    const stages = new Map(regions.map((region) => [region.name, new CreationStages()]));
    if (values.stages)
      tracker.onObject = (object, atMs) =>
        stages.get(object.metadata.name?.startsWith('us-') === true ? 'us' : 'eu')?.record(object, atMs);
    await tracker.start();
    tracker.origin = performance.now();
    // Interleaved (us-0, eu-0, us-1, …): both connections' objects exist from the first
    // second, so neither region's floor is charged for the other's creation time.
    const objects = Array.from({ length: n }, (_, i) =>
      regions.flatMap((region, r) => {
        if (region.name === 'eu' && i >= euN) return [];
        const object = agentDeployment(
          `${region.name}-agent-${String(i).padStart(5, '0')}`,
          listeners[r] ?? '',
        );
        return [
          {
            ...object,
            spec: { ...object.spec, connectionRef: { kind: 'PlatformConnection', name: region.name } },
          },
        ];
      }),
    ).flat();
    const timeline = values.timeline ? sampleCalls(regions) : undefined;
    const profile = values['cpu-profile'];
    if (profile !== undefined) await operator.startCpuProfile();
    const running = operator;
    const origin = tracker.origin;
    const cpuBefore = processCpuSeconds(running, us.emulators, regions);
    const created = createAll(kube, objects);
    const usPhase = tracker.waitForReady(n, Number(values['timeout-s']) * 1000, 'us-').then(async () => {
      const cpuAfter = processCpuSeconds(running, us.emulators, regions);
      if (profile !== undefined) await running.stopCpuProfile(profile);
      return { wallSeconds: (performance.now() - origin) / 1000, cpuAfter };
    });
    // Together: a failed create stops the run at once, and the US phase's own failure is not left unhandled.
    const [createdInS, { wallSeconds: usSeconds, cpuAfter }] = await Promise.all([
      created.then(() => (performance.now() - origin) / 1000),
      usPhase,
    ]);
    await tracker.waitForReady(n + euN, Number(values['timeout-s']) * 1000);
    const projectsUntil = performance.now() + Number(values['projects-wait-s']) * 1000;
    while (usProjectsOf(tracker) < n && performance.now() < projectsUntil) await sleep(200);
    timeline?.stop();

    console.log(
      `two connections, ${n} US and ${euN} EU objects, revision phase ${revisionPhaseMs} ms, one operator process ` +
        `(${cpus().length} cores, node ${process.version}); all ${n + euN} objects created in ${createdInS.toFixed(1)} s`,
    );
    const readyAt = tracker.readyAt;
    const reconciles = await operator.metric('controller_runtime_reconcile_total', {
      controller: 'agentdeployment',
    });
    const throttled = await operator.metric('agent_operator_reconcile_failures_total', {
      class: 'Throttled',
    });
    console.log(
      `operator: ${reconciles} reconciles (${throttled} throttled), ${operator.cpuSeconds().toFixed(1)} CPU seconds`,
    );
    console.log(
      `CPU seconds until the US objects were Ready (${usSeconds.toFixed(1)} s, ${cpus().length} cores): ` +
        cpuAfter
          .map(([name, after], i) => `${name} ${(after - (cpuBefore[i]?.[1] ?? 0)).toFixed(1)}`)
          .join(', '),
    );
    if (profile !== undefined) console.log(`CPU profile of the operator until then written to ${profile}`);
    for (const region of regions) {
      const count = region.name === 'eu' ? euN : n;
      if (count === 0) continue;
      const times = [...readyAt].filter(([name]) => name.startsWith(`${region.name}-`)).map(([, ms]) => ms);
      const seconds = Math.max(...times) / 1000;
      times.sort((x, y) => x - y);
      const at = (share: number) => ((times[Math.floor(times.length * share)] ?? 0) / 1000).toFixed(1);
      const floor = floorSeconds({
        n: count,
        allowedPerSecond: ratePerSecond(region.rateLimit),
        buildMs: 4 * revisionPhaseMs,
      });
      const stats = await region.emulators.admin<StatsSnapshot>('GET', '/stats');
      console.log(
        `${region.name} (${region.rateLimit}): Ready: half at ${at(0.5)} s, 90% at ${at(0.9)} s, 99% at ${at(0.99)} s, all at ${seconds.toFixed(1)} s, floor ${floor.toFixed(1)} s, ` +
          `ratio ${(seconds / floor).toFixed(2)} (target ≤ 1.1); ${stats.total} calls, ${stats.throttled} answered 429`,
      );
      const projects = [...tracker.tracingProjectAt]
        .filter(([name]) => name.startsWith(`${region.name}-`))
        .map(([, ms]) => ms);
      if (projects.length > 0)
        console.log(
          `  tracing projects: ${projects.length} recorded, the last at ${(Math.max(...projects) / 1000).toFixed(1)} s`,
        );
      if (values.stages)
        for (const line of stages.get(region.name)?.table(count) ?? []) console.log(`  ${line}`);
      console.log(
        `  calls by route: ${Object.entries(summarizeCalls(stats, n).callsByRoute)
          .map(([route, count]) => `${route} ${count}`)
          .join(', ')}`,
      );
    }
  } finally {
    await tracker?.stop();
    await operator?.stop();
    for (const region of regions) await region.emulators.close();
  }
}

await main();
