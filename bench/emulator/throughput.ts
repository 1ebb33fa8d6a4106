// Throughput of the control-plane emulator under concurrent GETs. The emulator runs as a
// child process pinned to one core (taskset, when present) so the figure is what one core
// serves; this driver pins itself to the other core. Seeds deployments, then for each of
// 3 runs drives GET /v2/deployments/{id} (optionally mixed with list calls) through an
// undici Pool for a fixed time, and prints requests/s and p50/p99 latency: the median of the runs.
//
//   npm run bench:emulator -- [--seconds 5] [--connections 32] [--deployments 1000] [--list-every 10]
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    deployments: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '3' },
    'list-every': { type: 'string', default: '0' },
  },
});
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const DEPLOYMENTS = Number(values.deployments);
const RUNS = Number(values.runs);
/** Every Nth request lists a page of 20 instead of reading one deployment (0: never). */
const LIST_EVERY = Number(values['list-every']);
const KEY = 'bench-key';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function startEmulatorProcess(pinned: boolean): Promise<{ child: ChildProcess; url: string }> {
  const args = ['--import', 'tsx', 'src/dev-cli.ts', 'emulate', 'control-plane', '--port', '0'];
  args.push('--api-key', KEY, '--rate-limit', 'off', '--revision-phase-ms', '0');
  const command = pinned ? 'taskset' : process.execPath;
  const child = spawn(command, pinned ? ['-c', '0', process.execPath, ...args] : args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (!child.stdout) throw new Error('emulator has no stdout');
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  const url = /(http:\/\/\S+)/.exec(line)?.[1];
  if (!url) throw new Error(`emulator printed no URL: ${line}`);
  return { child, url };
}

async function seed(pool: Pool): Promise<string[]> {
  const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
  const listeners = await pool.request({ method: 'GET', path: '/v2/listeners', headers });
  const listenerId = ((await listeners.body.json()) as { resources: { id: string }[] }).resources[0]?.id;
  if (!listenerId) throw new Error('no listener');
  const ids: string[] = [];
  for (let i = 0; i < DEPLOYMENTS; i++) {
    const body = JSON.stringify({
      name: `bench-${i}`,
      source: 'external_container',
      source_config: { listener_id: listenerId, resource_spec: { cpu: 1, memory_mb: 1024 } },
      source_revision_config: { image_uri: `registry.example/agent:${i}` },
      secrets: [{ name: 'TOKEN', value: 'x' }],
    });
    const response = await pool.request({ method: 'POST', path: '/v2/deployments', headers, body });
    const created = (await response.body.json()) as { id: string };
    ids.push(created.id);
  }
  return ids;
}

/**
 * CPU seconds (user + system) the process has used, from /proc (Linux); undefined elsewhere.
 * Requests per server CPU-second is the emulator's capacity on one core, and unlike the
 * wall-clock rate it holds when other work competes for the machine.
 */
function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks / 100 : undefined;
  } catch {
    return undefined;
  }
}

interface RunResult {
  requestsPerSecond: number;
  requestsPerCpuSecond: number | undefined;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

async function run(
  pool: Pool,
  ids: string[],
  serverPid: number | undefined,
  seconds = SECONDS,
): Promise<RunResult> {
  const cpuBefore = cpuSeconds(serverPid);
  const latencies: number[] = [];
  let errors = 0;
  let counter = 0;
  const headers = { 'x-api-key': KEY };
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      counter++;
      const listing = LIST_EVERY > 0 && counter % LIST_EVERY === 0;
      const path = listing
        ? '/v2/deployments?limit=20'
        : `/v2/deployments/${ids[counter % ids.length] ?? ''}`;
      const t0 = performance.now();
      const response = await pool.request({ method: 'GET', path, headers });
      await response.body.arrayBuffer();
      latencies.push(performance.now() - t0);
      if (response.statusCode !== 200) errors++;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = cpuSeconds(serverPid);
  const cpuUsed = cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : undefined;
  latencies.sort((a, b) => a - b);
  const at = (q: number): number =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    requestsPerSecond: latencies.length / elapsed,
    requestsPerCpuSecond: cpuUsed ? latencies.length / cpuUsed : undefined,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    errors,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function main(): Promise<void> {
  const pinned = hasTaskset();
  if (pinned) execFileSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' });
  const { child, url } = await startEmulatorProcess(pinned);
  const pool = new Pool(url, { connections: CONNECTIONS, pipelining: 1 });
  try {
    const ids = await seed(pool);
    // A short warm-up so the JIT has compiled the hot path before anything is measured.
    await run(pool, ids, child.pid, 1);
    const results: RunResult[] = [];
    for (let i = 0; i < RUNS; i++) {
      const result = await run(pool, ids, child.pid);
      results.push(result);
      console.log(
        `run ${i + 1}: ${result.requestsPerSecond.toFixed(0)} req/s, ${result.requestsPerCpuSecond?.toFixed(0) ?? '?'} req per server CPU-s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, non-200 ${result.errors}`,
      );
    }
    console.log(
      `emulator GET throughput (${pinned ? 'server pinned to 1 core' : 'unpinned'}, ${CONNECTIONS} connections, ${DEPLOYMENTS} deployments, ${LIST_EVERY > 0 ? `a list every ${LIST_EVERY}, ` : ''}${SECONDS} s x ${RUNS}, median): ` +
        `${median(results.map((r) => r.requestsPerSecond)).toFixed(0)} req/s, ` +
        `${median(results.map((r) => r.requestsPerCpuSecond ?? 0)).toFixed(0)} req per server CPU-second, ` +
        `p50 ${median(results.map((r) => r.p50Ms)).toFixed(2)} ms, p99 ${median(results.map((r) => r.p99Ms)).toFixed(2)} ms`,
    );
  } finally {
    await pool.close();
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

await main();
