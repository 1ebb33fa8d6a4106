// Sharded operators (docs/sharding.md) against one emulated cluster and one control plane:
// S shards (the default shard and s1…) x N objects each, spread over K keys so that every key
// has objects in every shard (each key is K-way shared, learning its share from 429s as two
// operators sharing a key do). Prints, per replica: settled RSS after a full GC, CPU seconds
// and control-plane list calls over one resync period; per key: time until all its objects
// are Ready against its floor; then the hand-over: shard 0's leader SIGKILLed, how long until
// its standby holds the Lease and an object created in that shard is Ready.
// With --single: one unsharded replica with all S x N objects: start-up to ready (caches
// synced over objects that already exist), settled RSS, resync CPU and list calls.
//
//   npx tsx bench/sharding/main.ts [--shards 4] [--n 2500] [--keys 4] [--rate-limit 1000/10]
//     [--revision-phase-ms 250] [--resync-period 30s] [--single] [--json out.json]
import { writeFile } from 'node:fs/promises';
import { cpus, hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { parseDurationFlag } from '../../src/command-line/duration-flag.js';
import { DEFAULT_SHARD, SHARD_LABEL } from '../../src/operator/shard.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import type { ResourceType } from '../../src/runtime/kube/resource.js';
import { floorSeconds } from '../converge/floor.js';
import { agentDeployment, createAll } from '../support/agent-deployments.js';
import { applyCrd, BENCH_API_KEY, BENCH_NAMESPACE, Emulators } from '../support/emulators.js';
import { OperatorProcess } from '../support/operator-process.js';
import { peakRssBytesOf } from '../support/processes.js';
import { ReadyTracker } from '../support/ready-tracker.js';
import { tenantIdForKey } from '../../src/sim/http/api-keys.js';

const { values } = parseArgs({
  options: {
    shards: { type: 'string', default: '4' },
    n: { type: 'string', default: '2500' },
    keys: { type: 'string', default: '4' },
    'rate-limit': { type: 'string', default: '1000/10' },
    'revision-phase-ms': { type: 'string', default: '250' },
    'resync-period': { type: 'string', default: '30s' },
    'timeout-s': { type: 'string', default: '1200' },
    single: { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
const shardCount = Number(values.shards);
const perShard = Number(values.n);
const keyCount = Number(values.keys);
const total = shardCount * perShard;
const revisionPhaseMs = Number(values['revision-phase-ms']);
const resyncMs = parseDurationFlag(values['resync-period']) ?? 30_000;
const [limitCount, limitWindow] = values['rate-limit'].split('/').map(Number) as [number, number];
const timeoutMs = Number(values['timeout-s']) * 1000;

const SECRETS: ResourceType = { group: '', version: 'v1', plural: 'secrets' };
const LEASES: ResourceType = { group: 'coordination.k8s.io', version: 'v1', plural: 'leases' };
const PLATFORM_CONNECTIONS: ResourceType = {
  group: 'agentplatform.io',
  version: 'v1alpha1',
  plural: 'platformconnections',
};
const LIST_CALLS = { route: '/v2/deployments', method: 'GET' };

const keyName = (k: number): string => `key-${k}`;
const apiKey = (k: number): string => (k === 0 ? BENCH_API_KEY : `${BENCH_API_KEY}-${k}`);
const shardName = (s: number): string => (s === 0 ? DEFAULT_SHARD : `s${s}`);

interface Replica {
  shard: string;
  operator: OperatorProcess;
}

async function until(check: () => Promise<boolean>, what: string, limitMs = timeoutMs): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out: ${what}`);
}

async function setUpKeys(emulators: Emulators): Promise<void> {
  const kube = emulators.kube;
  for (const plural of ['platformconnections', 'clusterplatformconnections']) {
    await applyCrd(kube, `agentplatform.io_${plural}.yaml`);
  }
  for (let k = 0; k < keyCount; k += 1) {
    await kube.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: keyName(k), namespace: BENCH_NAMESPACE },
      data: { apiKey: Buffer.from(apiKey(k)).toString('base64') },
    });
    await kube.create(PLATFORM_CONNECTIONS, {
      apiVersion: 'agentplatform.io/v1alpha1',
      kind: 'PlatformConnection',
      metadata: { name: keyName(k), namespace: BENCH_NAMESPACE },
      spec: {
        controlPlaneUrl: emulators.controlPlaneUrl,
        // The emulator serves the platform data API on the same address (tracing projects).
        platformApiUrl: emulators.controlPlaneUrl,
        apiKeySecretRef: { name: keyName(k), key: 'apiKey' },
        rateLimits: { default: { count: limitCount, windowSeconds: limitWindow } },
      },
    });
  }
}

function startReplica(emulators: Emulators, shard: string | undefined): Promise<OperatorProcess> {
  return OperatorProcess.start({
    controlPlaneUrl: emulators.controlPlaneUrl,
    kubeconfigPath: emulators.kubeconfigPath,
    flags: [
      '--rate-limit',
      values['rate-limit'],
      '--resync-period',
      values['resync-period'],
      '--allow-private-networks',
      '--leader-elect',
      '--leader-election-namespace',
      BENCH_NAMESPACE,
      ...(shard === undefined ? [] : ['--shard', shard]),
    ],
  });
}

/** Object i: shard i mod S; key (i div S) mod K, so that every key has objects in every shard. */
function objectsFor(listenerId: string, from: number, count: number) {
  return Array.from({ length: count }, (_, j) => {
    const i = from + j;
    const shard = i % shardCount;
    const key = Math.floor(i / shardCount) % keyCount;
    const object = agentDeployment(`k${key}-agent-${String(i).padStart(6, '0')}`, listenerId);
    return {
      ...object,
      metadata: {
        ...object.metadata,
        ...(values.single || shard === 0 ? {} : { labels: { [SHARD_LABEL]: shardName(shard) } }),
      },
      spec: { ...object.spec, connectionRef: { kind: 'PlatformConnection', name: keyName(key) } },
    };
  });
}

async function leaseHolder(emulators: Emulators, name: string): Promise<string | undefined> {
  try {
    const lease = await emulators.kube.get<KubeObject & { spec?: { holderIdentity?: string } }>(
      LEASES,
      BENCH_NAMESPACE,
      name,
    );
    return lease.spec?.holderIdentity || undefined;
  } catch {
    return undefined;
  }
}

/** Settled memory, and CPU seconds and list calls over one resync period, of each replica. */
async function steadyState(replicas: Replica[]) {
  const before = await Promise.all(
    replicas.map(async (r) => ({
      cpu: r.operator.cpuSeconds(),
      lists: await r.operator.metric('agent_operator_controlplane_requests_total', LIST_CALLS),
    })),
  );
  await new Promise((resolve) => setTimeout(resolve, resyncMs + 2_000));
  return Promise.all(
    replicas.map(async (r, i) => {
      const probe = await r.operator.gcAndMeasure();
      const lists = await r.operator.metric('agent_operator_controlplane_requests_total', LIST_CALLS);
      return {
        shard: r.shard,
        rssMiB: Math.round(probe.rssBytes / 2 ** 20),
        peakRssMiB: Math.round(peakRssBytesOf(r.operator.pid) / 2 ** 20),
        heapUsedMiB: Math.round(probe.heapUsedBytes / 2 ** 20),
        heapCommittedMiB: Math.round(probe.heapTotalBytes / 2 ** 20),
        externalMiB: Math.round(probe.externalBytes / 2 ** 20),
        spacesCommittedMiB: Object.fromEntries(
          Object.entries(probe.spaces).map(([space, [committed]]) => [
            space,
            Math.round(committed / 2 ** 20),
          ]),
        ),
        cpuSecondsPerResync: Number((r.operator.cpuSeconds() - (before[i]?.cpu ?? 0)).toFixed(2)),
        listCallsPerResync: lists - (before[i]?.lists ?? 0),
      };
    }),
  );
}

function perKeyConvergence(tracker: ReadyTracker) {
  const perKey = total / keyCount;
  const floor = floorSeconds({
    n: perKey,
    allowedPerSecond: limitCount / limitWindow,
    buildMs: 4 * revisionPhaseMs,
  });
  return Array.from({ length: keyCount }, (_, k) => {
    const times = [...tracker.readyAt].filter(([name]) => name.startsWith(`k${k}-`)).map(([, ms]) => ms);
    const seconds = Math.max(...times) / 1000;
    return {
      key: keyName(k),
      objects: times.length,
      seconds: Number(seconds.toFixed(1)),
      floor: Number(floor.toFixed(1)),
      ratio: Number((seconds / floor).toFixed(2)),
    };
  });
}

async function main(): Promise<void> {
  // Every key acts for the benchmark key's tenant, so the one listener serves every object.
  const tenant = tenantIdForKey(BENCH_API_KEY);
  const keyFlags = Array.from({ length: keyCount - 1 }, (_, k) => [
    '--api-key',
    `${apiKey(k + 1)}=${tenant}`,
  ]).flat();
  const emulators = await Emulators.start({
    revisionPhaseMs,
    rateLimit: values['rate-limit'],
    controlPlaneFlags: keyFlags,
  });
  const replicas: Replica[] = [];
  const tracker = new ReadyTracker(emulators.kube);
  const report: Record<string, unknown> = {
    machine: `${cpus().length} cores, node ${process.version}`,
    shards: values.single ? 1 : shardCount,
    objects: total,
    keys: keyCount,
    rateLimitPerKey: values['rate-limit'],
    revisionPhaseMs,
    resyncPeriod: values['resync-period'],
  };
  try {
    await setUpKeys(emulators);
    const listenerId = await emulators.listenerId();
    const shards = values.single ? [undefined] : Array.from({ length: shardCount }, (_, s) => shardName(s));
    for (const shard of shards)
      replicas.push({ shard: shard ?? 'unsharded', operator: await startReplica(emulators, shard) });
    await emulators.admin('POST', '/reset');
    await tracker.start();
    const cpuBefore = replicas.map((r) => r.operator.cpuSeconds());
    tracker.origin = performance.now();
    await createAll(emulators.kube, objectsFor(listenerId, 0, total));
    report.createdInSeconds = Number(((performance.now() - tracker.origin) / 1000).toFixed(1));
    const progress = setInterval(() => console.error(`${tracker.readyAt.size} of ${total} Ready`), 10_000);
    try {
      await tracker.waitForReady(total, timeoutMs);
    } finally {
      clearInterval(progress);
    }
    report.convergence = perKeyConvergence(tracker);
    // The replicas' CPU until every object was Ready: what sets the pace when they, not the
    // keys' budgets, are the bottleneck.
    report.cpuSecondsToReady = replicas.map((r, i) =>
      Number((r.operator.cpuSeconds() - (cpuBefore[i] ?? 0)).toFixed(1)),
    );
    const stats = await emulators.admin<{ total: number; throttled: number }>('GET', '/stats');
    report.calls = {
      total: stats.total,
      throttled429: stats.throttled,
      ratio429: Number((stats.throttled / Math.max(stats.total, 1)).toFixed(4)),
    };
    // The tracing projects are looked up with spare budget after the rollouts: the fleet is
    // settled once every object names its project (the steady figures are taken after that).
    await until(async () => tracker.tracingProjectAt.size >= total, 'every tracing project recorded');
    report.tracingProjectsRecordedSeconds = Number(
      (Math.max(...tracker.tracingProjectAt.values()) / 1000).toFixed(1),
    );
    report.steady = await steadyState(replicas);

    if (values.single) {
      // Start-up over a fleet that exists: a fresh replica until /readyz answers 200.
      const [only] = replicas.splice(0, 1);
      await only?.operator.stop();
      const started = performance.now();
      const fresh = await startReplica(emulators, undefined);
      replicas.push({ shard: 'unsharded', operator: fresh });
      await until(async () => (await fetch(`${fresh.metricsUrl}/readyz`)).ok, 'the fresh replica is ready');
      report.startUpToReadySeconds = Number(((performance.now() - started) / 1000).toFixed(1));
    } else {
      // Hand-over: a standby for shard 0, then its leader SIGKILLed (no Lease release).
      const lease = `agent-operator-${shardName(0)}`;
      const standby = await startReplica(emulators, shardName(0));
      const leader = replicas[0]?.operator;
      if (leader === undefined) throw new Error('no shard 0 replica');
      await until(
        async () => (await leaseHolder(emulators, lease)) === `${hostname()}_${leader.pid}`,
        'shard 0 led by its first replica',
      );
      const killedAt = performance.now();
      leader.process.child.kill('SIGKILL');
      const [extra] = objectsFor(listenerId, total, shardCount);
      if (extra === undefined) throw new Error('no object for the hand-over');
      await createAll(emulators.kube, [extra]);
      await until(
        async () => (await leaseHolder(emulators, lease)) === `${hostname()}_${standby.pid}`,
        'the standby takes the Lease',
        120_000,
      );
      const leaseTakenS = (performance.now() - killedAt) / 1000;
      await until(
        async () => tracker.readyAt.has(extra.metadata.name ?? ''),
        'the new object is Ready',
        120_000,
      );
      report.handOver = {
        leaseTakenSeconds: Number(leaseTakenS.toFixed(1)),
        newObjectReadySeconds: Number(((performance.now() - killedAt) / 1000).toFixed(1)),
      };
      replicas[0] = { shard: `${shardName(0)} (standby)`, operator: standby };
    }
    console.log(JSON.stringify(report, null, 2));
    if (values.json !== undefined) await writeFile(values.json, `${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await tracker.stop();
    await Promise.all(replicas.map((r) => r.operator.stop().catch(() => undefined)));
    await emulators.close();
  }
}

await main();
