// `npm run bench:kube-transport -- [--requests 20000] [--callers 8] [--runs 3] [--watch-events 5000 [--pace 1500]]`
// The CPU the operator's Kubernetes transport (src/runtime/kube/transport.ts) spends per
// request: `--callers` concurrent callers send `--requests` merge-patch PATCHes through one
// KubeConfigTransport to a local server in another process (answer-server.ts) that answers
// each with a 1.7 KB object. Prints this process's CPU microseconds per request (what the
// operator pays for each status write, before its own work on the answer) and the wall-clock
// rate; the median of `--runs` runs, after a warm-up of 2,000 requests. Compare two commits
// by running it in each, alternately.
// With --watch-events, it reads watches instead: each run opens a watch (managedFields dropped,
// as the informers read) that the server answers with that many MODIFIED events, --pace a
// second one per write (default 1,500, about the rate a touch of every object arrives at;
// 0 sends them all at once), and prints the CPU microseconds per event read and parsed.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadClusterAccess } from '../../src/runtime/kube/cluster-access.js';
import { KubeConfigTransport, type KubeRequest } from '../../src/runtime/kube/transport.js';
import { positiveInteger } from '../support/cli-args.js';
import { median, round } from '../support/emulator-stats.js';
import { ROOT, spawnTsNode } from '../support/processes.js';

const WARM_UP = 2_000;

const { values } = parseArgs({
  options: {
    requests: { type: 'string' },
    callers: { type: 'string' },
    runs: { type: 'string' },
    'watch-events': { type: 'string' },
    pace: { type: 'string' },
  },
});
const requests = positiveInteger(values.requests, 'requests', 20_000);
const callers = positiveInteger(values.callers, 'callers', 8);
const runs = positiveInteger(values.runs, 'runs', 3);
const watchEvents =
  values['watch-events'] === undefined
    ? undefined
    : positiveInteger(values['watch-events'], 'watch-events', 5_000);
const pace = values.pace === '0' ? 0 : positiveInteger(values.pace, 'pace', 1_500);

const PATCH: KubeRequest = {
  method: 'PATCH',
  path: '/apis/agents.example.io/v1/namespaces/bench/agentdeployments/bench-object/status',
  body: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Deployed' }] } },
  contentType: 'application/merge-patch+json',
};

/** Reads one watch of `count` events through the transport, as an informer does. */
async function readWatch(transport: KubeConfigTransport, count: number): Promise<void> {
  const events = await transport.lines({
    method: 'GET',
    path: '/apis/agents.example.io/v1/namespaces/bench/agentdeployments',
    query: { watch: 1, count, pace },
    omitManagedFields: true,
  });
  let read = 0;
  for await (const _ of events) read += 1;
  if (read !== count) throw new Error(`read ${read} watch events, expected ${count}`);
}

async function sendAll(transport: KubeConfigTransport, count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < count) {
        next += 1;
        await transport.json(PATCH);
      }
    }),
  );
}

const server = spawnTsNode(join(ROOT, 'bench/kube-transport/answer-server.ts'), []);
const directory = await mkdtemp(join(tmpdir(), 'kube-transport-bench-'));
try {
  const port = await server.waitForLine((line) => (/^\d+$/.test(line) ? line : undefined), 'the server port');
  // Not the emulator's writeKubeconfig (src/sim/kube/kubeconfig.ts): that one carries no
  // credentials, and an operator in a cluster sends a bearer token with every request.
  const kubeconfig = join(directory, 'kubeconfig');
  await writeFile(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: bench, cluster: {server: "http://127.0.0.1:${port}"}}]`,
      'users: [{name: bench, user: {token: bench-token}}]',
      'contexts: [{name: bench, context: {cluster: bench, user: bench}}]',
      'current-context: bench',
      '',
    ].join('\n'),
  );
  const transport = new KubeConfigTransport(await loadClusterAccess({ kind: 'file', path: kubeconfig }));
  if (watchEvents === undefined) await measurePatches(transport);
  else await measureWatches(transport, watchEvents);
  transport.close();
} finally {
  await server.stop();
  await rm(directory, { recursive: true, force: true });
}

async function measurePatches(transport: KubeConfigTransport): Promise<void> {
  await sendAll(transport, WARM_UP);
  const cpuPerRequest: number[] = [];
  const perSecond: number[] = [];
  for (let run = 1; run <= runs; run += 1) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await sendAll(transport, requests);
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const micros = (cpu.user + cpu.system) / requests;
    cpuPerRequest.push(micros);
    perSecond.push(requests / seconds);
    process.stderr.write(
      `run ${run}: ${round(micros, 1)} us of CPU per request, ${Math.round(requests / seconds)}/s\n`,
    );
  }
  process.stdout.write(
    `${requests} PATCHes x ${runs} runs, ${callers} callers: ${round(median(cpuPerRequest), 1)} us of CPU per request (median), ${Math.round(median(perSecond))} requests/s\n`,
  );
}

async function measureWatches(transport: KubeConfigTransport, count: number): Promise<void> {
  // A warm-up watch: the first one compiles the path.
  await readWatch(transport, Math.min(count, 2_000));
  const cpuPerEvent: number[] = [];
  for (let run = 1; run <= runs; run += 1) {
    const cpuBefore = process.cpuUsage();
    await readWatch(transport, count);
    const cpu = process.cpuUsage(cpuBefore);
    const micros = (cpu.user + cpu.system) / count;
    cpuPerEvent.push(micros);
    process.stderr.write(`run ${run}: ${round(micros, 1)} us of CPU per watch event\n`);
  }
  process.stdout.write(
    `${count} watch events x ${runs} runs, ${pace === 0 ? 'all at once' : `${pace} a second, one per write`}: ${round(median(cpuPerEvent), 1)} us of CPU per event (median)\n`,
  );
}
