// Trace deletion at scale: 1,000,000 trace ids of one session, streamed from a generator into
// batches of 1000 (1000 requests), against the emulator in its own process (the real CLI, with
// `--trace-delete-delay 1h` so the weekend job stays out of the way).
//
//   npx tsx bench/data/main.ts [--ids 1000000] [--deployments 1000]
//
// Phase 1, deletion alone: time to submit every batch, as a ratio to the rate floor of the trace
// delete route (it falls on the default API-key row, 1000 / 10 s: floor = requests / 100 per s),
// and the client's memory while it runs (heap at 10%, 50% and 100%, and the peak RSS).
// Phase 2, shared budget, measured at the client level: `--deployments` control-plane creates
// (an AgentDeployment creation storm's calls, interactive) start with a second deletion, both
// on one key and one budget. The deployments' ratio is to their own floor (calls / rate: the
// bulk deletion should not slow them); the deletion's is to the floor of what is left to it
// (all calls on the row / rate), since both must pass through the same 100 per s.
// Phase 3, latency: 100,000 ids with 50 ms added to every trace delete, one request in flight
// (the default) against eight.
// Phase 4, resource level (resource.ts): the operator process handles a real TraceDeletion of
// `--ids` ids from ConfigMaps while `--deployments` AgentDeployments converge on the same key.
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { ControlPlaneClient } from '../../src/controlplane/client/control-plane-client.js';
import { PlatformDataClient } from '../../src/platformdata/platform-data-client.js';
import type { BatchOutcome } from '../../src/platformdata/batch-submission.js';
import { submitTraceDeletion } from '../../src/platformdata/trace-deletion.js';
import { ROOT, spawnTsNode } from '../support/processes.js';
import { positiveInteger } from '../support/cli-args.js';
import { resourceLevel } from './resource.js';
import { ADMIN_TOKEN_ENV, generateAdminToken } from '../../src/sim/controlplane/admin-guard.js';

const KEYS = [
  'bench-data-alone-0123456789',
  'bench-data-shared-0123456789',
  'bench-data-latency-0123456789',
] as const;
const LATENCY_MS = 50;
const LATENCY_IDS = 100_000;
const ROW_PER_SECOND = 1000 / 10;
const IDS_PER_REQUEST = 1000;

/** Trace ids made as they are asked for: nothing holds the million. */
function* traceIds(count: number): Generator<string> {
  for (let i = 0; i < count; i += 1) yield crypto.randomUUID();
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function createSession(url: string, key: string, name: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/sessions`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  const body = (await response.json()) as { id?: string };
  if (body.id === undefined) throw new Error(`could not create the session (HTTP ${response.status})`);
  return body.id;
}

function check(outcome: BatchOutcome, what: string): void {
  if (!outcome.ok)
    throw new Error(`${what}: ${outcome.error.message} after ${outcome.progress.batchesAccepted} batches`);
}

async function deletionAlone(url: string, ids: number): Promise<void> {
  const key = KEYS[0];
  const session = await createSession(url, key, 'bench-alone');
  const client = new PlatformDataClient({ baseUrl: url, credentials: { apiKey: key } });
  const batches = Math.ceil(ids / IDS_PER_REQUEST);
  const marks = new Map([
    [Math.ceil(batches * 0.1), '10%'],
    [Math.ceil(batches * 0.5), '50%'],
    [batches, '100%'],
  ]);
  const heapAt: string[] = [];
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 100);
  const started = performance.now();
  const outcome = await submitTraceDeletion(client, {
    sessionId: session,
    traceIds: traceIds(ids),
    onBatchAccepted: (accepted) => {
      const mark = marks.get(accepted);
      if (mark !== undefined) heapAt.push(`${mark} ${mb(process.memoryUsage().heapUsed)}`);
    },
  });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  await client.close();
  check(outcome, 'deletion alone');
  const floor = batches / ROW_PER_SECOND;
  process.stdout.write(
    `deletion alone: ${ids} ids in ${batches} requests, ${seconds.toFixed(2)} s, floor ${floor.toFixed(2)} s, ` +
      `ratio ${(seconds / floor).toFixed(3)}; heap ${heapAt.join(', ')}; peak RSS ${mb(peakRss)}\n`,
  );
}

async function sharedBudget(url: string, ids: number, deployments: number): Promise<void> {
  const key = KEYS[1];
  const session = await createSession(url, key, 'bench-shared');
  const controlPlane = new ControlPlaneClient({ baseUrl: url, credentials: { apiKey: key } });
  const platform = new PlatformDataClient({
    baseUrl: url,
    credentials: { apiKey: key },
    budget: controlPlane.budget,
  });
  const listeners = await controlPlane.listListeners();
  const listenerId = listeners.ok ? listeners.value.resources[0]?.id : undefined;
  if (listenerId === undefined) throw new Error('the emulator has no default listener');
  const batches = Math.ceil(ids / IDS_PER_REQUEST);
  const started = performance.now();
  const deletion = submitTraceDeletion(platform, { sessionId: session, traceIds: traceIds(ids) }).then(
    (outcome) => ({
      outcome,
      seconds: (performance.now() - started) / 1000,
    }),
  );
  let failed = 0;
  let firstError: string | undefined;
  await Promise.all(
    Array.from({ length: deployments }, async (_, i) => {
      const created = await controlPlane.createDeployment({
        name: `bench-agent-${i}`,
        source: 'external_container',
        source_config: { listener_id: listenerId },
        source_revision_config: { image_uri: 'registry.example/agent:1' },
        secrets: [],
      });
      if (!created.ok) {
        failed += 1;
        firstError ??= created.error.message;
      }
    }),
  );
  const deploymentSeconds = (performance.now() - started) / 1000;
  const { outcome, seconds } = await deletion;
  await Promise.all([controlPlane.close(), platform.close()]);
  check(outcome, 'shared deletion');
  if (failed > 0) throw new Error(`${failed} deployment calls failed, the first: ${firstError ?? ''}`);
  const deploymentFloor = deployments / ROW_PER_SECOND;
  const sharedFloor = (deployments + batches) / ROW_PER_SECOND;
  process.stdout.write(
    `shared budget: ${deployments} deployment calls done in ${deploymentSeconds.toFixed(2)} s, ` +
      `floor ${deploymentFloor.toFixed(2)} s, ratio ${(deploymentSeconds / deploymentFloor).toFixed(3)}; ` +
      `deletion of ${ids} ids done in ${seconds.toFixed(2)} s, floor of the shared row ${sharedFloor.toFixed(2)} s, ` +
      `ratio ${(seconds / sharedFloor).toFixed(3)}\n`,
  );
}

/**
 * Phase 3: a network round trip of LATENCY_MS (injected by the emulator on the trace delete route).
 * One request at a time is bound by the round trip; a few in flight hide it and the budget paces.
 */
async function withLatency(url: string, adminToken: string): Promise<void> {
  const key = KEYS[2];
  const session = await createSession(url, key, 'bench-latency');
  const admin = { authorization: `Bearer ${adminToken}` };
  const fault = await fetch(`${url}/_emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...admin },
    body: JSON.stringify({ method: 'POST', route: '/runs/delete', latencyMs: LATENCY_MS }),
  });
  if (!fault.ok) throw new Error(`could not inject latency (HTTP ${fault.status})`);
  const floor = Math.ceil(LATENCY_IDS / IDS_PER_REQUEST) / ROW_PER_SECOND;
  const figures: string[] = [];
  for (const concurrency of [1, 8]) {
    const client = new PlatformDataClient({ baseUrl: url, credentials: { apiKey: key } });
    const started = performance.now();
    const outcome = await submitTraceDeletion(client, {
      sessionId: session,
      traceIds: traceIds(LATENCY_IDS),
      concurrency,
    });
    const seconds = (performance.now() - started) / 1000;
    await client.close();
    check(outcome, `deletion with ${concurrency} in flight`);
    figures.push(`${concurrency} in flight ${seconds.toFixed(2)} s (ratio ${(seconds / floor).toFixed(3)})`);
  }
  await fetch(`${url}/_emulator/faults`, { method: 'DELETE', headers: admin });
  process.stdout.write(
    `with ${LATENCY_MS} ms per request: ${LATENCY_IDS} ids, floor ${floor.toFixed(2)} s: ${figures.join(', ')}\n`,
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { ids: { type: 'string' }, deployments: { type: 'string' } } });
  const ids = positiveInteger(values.ids, 'ids', 1_000_000);
  const deployments = positiveInteger(values.deployments, 'deployments', 1000);
  const adminToken = generateAdminToken();
  const emulator = spawnTsNode(
    join(ROOT, 'src/dev-cli.ts'),
    [
      'emulate',
      'control-plane',
      '--port',
      '0',
      ...KEYS.flatMap((key) => ['--api-key', key]),
      '--rate-limit',
      '1000/10',
      '--trace-delete-delay',
      '1h',
    ],
    // The admin API (faults, phase 3) wants a bearer token; it is passed in the environment.
    { quietStderr: true, env: { [ADMIN_TOKEN_ENV]: adminToken } },
  );
  try {
    const url = await emulator.waitForLine((line) => /(http:\/\/\S+)/.exec(line)?.[1], 'the emulator URL');
    await deletionAlone(url, ids);
    await sharedBudget(url, ids, deployments);
    await withLatency(url, adminToken);
  } finally {
    await emulator.stop();
  }
  await resourceLevel(ids, deployments);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:data: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
