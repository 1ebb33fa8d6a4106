// `npm run chaos -- [--duration 10m] [--seed N] [--rate-limit 30/2]`: runs the chaos suite
// alone, by hand, usually long. It turns the flags into the environment the vitest file reads
// (CHAOS_DURATION, CHAOS_SEED, CHAOS_RATE_LIMIT), so that the same file serves CI and long runs.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ChaosConfigError, chaosConfigFrom } from './config.js';

const USAGE = `Usage: npm run chaos -- [--duration <duration>] [--seed <n>] [--rate-limit <count>/<seconds>] [--replicas 1|2]

  --duration    how long faults and the workload run (CHAOS_DURATION; default 40s), e.g. 10m
  --seed        replay a run's random choices (CHAOS_SEED; default: random, printed)
  --rate-limit  the emulator's limit, also given to the operator (CHAOS_RATE_LIMIT; default 30/2)
  --replicas    2: two replicas with leader election, the leader killed, paused and cut off from
                lease renewals (CHAOS_REPLICAS; default 1; the short run is then 50s)
`;

function main(argv: string[]): Promise<number> {
  let values: { duration?: string; seed?: string; 'rate-limit'?: string; replicas?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        duration: { type: 'string' },
        seed: { type: 'string' },
        'rate-limit': { type: 'string' },
        replicas: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    process.stderr.write(`chaos: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return Promise.resolve(2);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return Promise.resolve(0);
  }
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (values.duration !== undefined) env.CHAOS_DURATION = values.duration;
  if (values.seed !== undefined) env.CHAOS_SEED = values.seed;
  if (values['rate-limit'] !== undefined) env.CHAOS_RATE_LIMIT = values['rate-limit'];
  if (values.replicas !== undefined) env.CHAOS_REPLICAS = values.replicas;
  try {
    // Fail here, with the flag's name, rather than inside vitest.
    const config = chaosConfigFrom(env);
    env.CHAOS_SEED = String(config.seed);
  } catch (error) {
    if (!(error instanceof ChaosConfigError)) throw error;
    const message = error.message
      .replace('CHAOS_DURATION', '--duration')
      .replace('CHAOS_SEED', '--seed')
      .replace('CHAOS_RATE_LIMIT', '--rate-limit')
      .replace('CHAOS_REPLICAS', '--replicas');
    process.stderr.write(`chaos: ${message}\n\n${USAGE}`);
    return Promise.resolve(2);
  }
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const vitest = spawn('npx', ['vitest', 'run', 'test/chaos/chaos.test.ts'], {
    cwd: root,
    env,
    stdio: 'inherit',
  });
  return new Promise((resolve) => vitest.once('exit', (code) => resolve(code ?? 1)));
}

process.exitCode = await main(process.argv.slice(2));
