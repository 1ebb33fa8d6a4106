// How well one rate budget spends a limit: M concurrent callers issue K requests each through
// one client against the control-plane emulator limited to `count` per `window` seconds.
// Prints the achieved rate as a fraction of the allowed rate (aim >= 0.95) and the 429s the
// emulator answered (aim 0); the median of several runs, each with its own API key so that no
// run inherits a server window that an earlier run filled.
//
//   npm run bench:client -- [--callers 20] [--requests 30] [--count 200] [--window 2] [--runs 3]
//                           [--server-count N] [--no-retry-after]
// --server-count gives the emulator a lower limit than the client is configured with, to measure
// recovery (429s received, achieved rate as a fraction of the SERVER's limit).
import { parseArgs } from 'node:util';
import { ControlPlaneClient } from '../../src/controlplane/client/control-plane-client.js';
import { startControlPlaneEmulator } from '../../src/sim/controlplane/index.js';
import { emulatorAdmin } from '../../test/controlplane-client/support/emulator.js';
import { positiveInteger } from '../support/cli-args.js';

interface RunFigures {
  requests: number;
  failed: number;
  seconds: number;
  ratio: number;
  throttled: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      callers: { type: 'string' },
      requests: { type: 'string' },
      count: { type: 'string' },
      window: { type: 'string' },
      runs: { type: 'string' },
      'server-count': { type: 'string' },
      'no-retry-after': { type: 'boolean' },
    },
  });
  const callers = positiveInteger(values.callers, 'callers', 20);
  const perCaller = positiveInteger(values.requests, 'requests', 30);
  const count = positiveInteger(values.count, 'count', 200);
  const windowSeconds = positiveInteger(values.window, 'window', 2);
  const runs = positiveInteger(values.runs, 'runs', 3);
  const serverCount = positiveInteger(values['server-count'], 'server-count', count);
  const limit = { count, windowSeconds };
  const keys = Array.from({ length: runs }, (_, i) => `bench-key-${i}`);
  const emulator = await startControlPlaneEmulator({
    apiKeys: keys.map((key) => ({ key })),
    rateLimit: { count: serverCount, windowSeconds },
    retryAfter: values['no-retry-after'] !== true,
    revisionPhaseMs: 0,
  });
  const allowedPerSecond = serverCount / windowSeconds;
  const figures: RunFigures[] = [];
  try {
    for (const key of keys) {
      const client = new ControlPlaneClient({
        baseUrl: emulator.url,
        credentials: { apiKey: key },
        rateLimits: { default: limit },
      });
      const throttledBefore = (await emulatorAdmin.stats(emulator)).throttled;
      let failed = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: callers }, async () => {
          for (let i = 0; i < perCaller; i += 1) {
            const result = await client.listListeners();
            if (!result.ok) failed += 1;
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      await client.close();
      const requests = callers * perCaller;
      const throttled = (await emulatorAdmin.stats(emulator)).throttled - throttledBefore;
      const ratio = requests / seconds / allowedPerSecond;
      figures.push({ requests, failed, seconds, ratio, throttled });
      process.stdout.write(
        `run: ${requests} requests in ${seconds.toFixed(2)} s, achieved/allowed ${ratio.toFixed(3)}, 429s ${throttled}, failed ${failed}\n`,
      );
    }
  } finally {
    await emulator.close();
  }
  process.stdout.write(
    `budget bench (${callers} callers x ${perCaller} requests, client limit ${count}/${windowSeconds}s, ` +
      `server limit ${serverCount}/${windowSeconds}s${values['no-retry-after'] === true ? ' without Retry-After' : ''}, median of ${runs}): ` +
      `achieved/allowed ${median(figures.map((f) => f.ratio)).toFixed(3)}, 429s ${median(figures.map((f) => f.throttled))}, ` +
      `failed ${median(figures.map((f) => f.failed))}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:client: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
