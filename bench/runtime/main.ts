// The agent runtime emulator's speed. (1) Throughput of stateless POST /runs/wait: the
// control-plane emulator (which serves the runtimes) runs as a child process pinned to one
// core when taskset exists; undici drives it from the other core; the figure that holds
// on a busy machine is requests per server CPU-second (from /proc), printed beside the
// wall-clock rate. (2) Streaming without buffering: a run that takes --sleep-ms streams
// its metadata event at once and its reply at the end; the time to the first event is
// printed against the total. Medians of --runs runs.
//
//   npx tsx bench/runtime/main.ts [--seconds 5] [--connections 32] [--runs 3] [--sleep-ms 2000]
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { median, round } from '../support/emulator-stats.js';
import { cpuSecondsOf, spawnTsNode, type NodeProcess } from '../support/processes.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    runs: { type: 'string', default: '3' },
    'sleep-ms': { type: 'string', default: '2000' },
  },
});
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const RUNS = Number(values.runs);
const SLEEP_MS = Number(values['sleep-ms']);
const KEY = 'bench-key';
const TARGET_PER_CPU_SECOND = 2000;
const HEADERS = { 'x-api-key': KEY, 'x-auth-scheme': 'platform-api-key', 'content-type': 'application/json' };

function pin(pid: number, core: number): boolean {
  try {
    execFileSync('taskset', ['-cp', String(core), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function startEmulator(): Promise<{ server: NodeProcess; url: string; pinned: boolean }> {
  const server = spawnTsNode(
    'src/dev-cli.ts',
    [
      'emulate',
      'control-plane',
      '--port',
      '0',
      '--api-key',
      KEY,
      '--rate-limit',
      'off',
      '--revision-phase-ms',
      '0',
    ],
    { quietStderr: true },
  );
  const url = await server.waitForLine(
    (line) => /listening on (http:\/\/\S+)/.exec(line)?.[1],
    'the emulator URL',
  );
  const pinned = pin(server.pid, 0) && pin(process.pid, 1);
  return { server, url, pinned };
}

async function deployAgent(url: string): Promise<string> {
  const pool = new Pool(url);
  try {
    const listeners = await pool.request({ method: 'GET', path: '/v2/listeners', headers: HEADERS });
    const listenerId = ((await listeners.body.json()) as { resources: { id: string }[] }).resources[0]?.id;
    const created = await pool.request({
      method: 'POST',
      path: '/v2/deployments',
      headers: HEADERS,
      body: JSON.stringify({
        name: 'bench-agent',
        source: 'external_container',
        source_config: { listener_id: listenerId },
        source_revision_config: { image_uri: 'registry.example/bench:1' },
        secrets: [],
      }),
    });
    const deployment = (await created.body.json()) as { source_config: { custom_url: string } };
    return deployment.source_config.custom_url;
  } finally {
    await pool.close();
  }
}

interface ThroughputResult {
  perSecond: number;
  perCpuSecond: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
}

async function throughput(
  pool: Pool,
  basePath: string,
  pid: number,
  seconds: number,
): Promise<ThroughputResult> {
  const body = JSON.stringify({
    assistant_id: 'agent',
    input: { messages: [{ role: 'user', content: 'ping' }] },
  });
  const latencies: number[] = [];
  let failures = 0;
  const cpuBefore = cpuSecondsOf(pid);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const response = await pool.request({
        method: 'POST',
        path: `${basePath}/runs/wait`,
        headers: HEADERS,
        body,
      });
      const text = await response.body.text();
      latencies.push(performance.now() - t0);
      if (response.statusCode !== 200 || !text.includes('You said: ping')) failures++;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const cpu = cpuSecondsOf(pid) - cpuBefore;
  latencies.sort((a, b) => a - b);
  const at = (q: number): number =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    perSecond: latencies.length / elapsed,
    perCpuSecond: cpu > 0 ? latencies.length / cpu : Number.NaN,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    failures,
  };
}

interface StreamTiming {
  firstEventMs: number;
  replyMs: number;
  totalMs: number;
}

/** Times one streamed run of SLEEP_MS: first bytes, the reply event, the end of the stream. */
async function streamTiming(agentUrl: string): Promise<StreamTiming> {
  const started = performance.now();
  const response = await fetch(`${agentUrl}/runs/stream`, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      assistant_id: 'agent',
      input: { messages: [{ role: 'user', content: `sleep:${SLEEP_MS}` }] },
      stream_mode: ['updates'],
    }),
  });
  if (!response.body) throw new Error('the stream has no body');
  let firstEventMs = Number.NaN;
  let replyMs = Number.NaN;
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of response.body) {
    text += decoder.decode(chunk as Uint8Array, { stream: true });
    if (Number.isNaN(firstEventMs) && text.includes('event: metadata'))
      firstEventMs = performance.now() - started;
    if (Number.isNaN(replyMs) && text.includes('event: updates')) replyMs = performance.now() - started;
  }
  return { firstEventMs, replyMs, totalMs: performance.now() - started };
}

async function main(): Promise<void> {
  const { server, url, pinned } = await startEmulator();
  try {
    const agentUrl = await deployAgent(url);
    const basePath = new URL(agentUrl).pathname;
    const pool = new Pool(url, { connections: CONNECTIONS, pipelining: 1 });
    try {
      await throughput(pool, basePath, server.pid, 2); // warm-up: the JIT compiles the hot path
      const results: ThroughputResult[] = [];
      for (let i = 0; i < RUNS; i++) {
        const result = await throughput(pool, basePath, server.pid, SECONDS);
        results.push(result);
        console.log(
          `wait run ${i + 1}: ${result.perSecond.toFixed(0)} req/s, ${result.perCpuSecond.toFixed(0)} req per server CPU-s, ` +
            `p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, failures ${result.failures}`,
        );
      }
      const perCpu = median(results.map((r) => r.perCpuSecond));
      console.log(
        `runtime /runs/wait (stateless, ${pinned ? 'server pinned to 1 core' : 'unpinned'}, ${CONNECTIONS} connections, ` +
          `${SECONDS} s x ${RUNS}, median): ${median(results.map((r) => r.perSecond)).toFixed(0)} req/s wall, ` +
          `${perCpu.toFixed(0)} req per server CPU-second = ${round(perCpu / TARGET_PER_CPU_SECOND, 2)}x the ${TARGET_PER_CPU_SECOND}/s target, ` +
          `p50 ${median(results.map((r) => r.p50Ms)).toFixed(2)} ms, p99 ${median(results.map((r) => r.p99Ms)).toFixed(2)} ms`,
      );
    } finally {
      await pool.close();
    }

    const timings: StreamTiming[] = [];
    for (let i = 0; i < RUNS; i++) timings.push(await streamTiming(agentUrl));
    const first = median(timings.map((t) => t.firstEventMs));
    const reply = median(timings.map((t) => t.replyMs));
    const total = median(timings.map((t) => t.totalMs));
    console.log(
      `runtime /runs/stream of a ${SLEEP_MS} ms run (median of ${RUNS}): first event after ${first.toFixed(1)} ms, ` +
        `reply after ${reply.toFixed(0)} ms, end after ${total.toFixed(0)} ms; first/total = ${round(first / total, 4)} ` +
        `(a buffered stream would be ~1)`,
    );
  } finally {
    await server.stop();
  }
}

await main();
