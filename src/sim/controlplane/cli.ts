// `agent-operator emulate control-plane`: serves the emulator until SIGINT or SIGTERM.
// Prints exactly one stdout line, containing the base URL, once it listens.
import { parseArgs } from 'node:util';
import { createLogger } from '../../observability/logger.js';
import type { ApiKeyGrant } from './auth.js';
import { isUuid } from './ids.js';
import { DEFAULT_API_KEY, startControlPlaneEmulator, type ControlPlaneEmulatorOptions } from './index.js';
import type { RateLimitConfig } from './rate-limiter.js';

const USAGE = `Usage: agent-operator emulate control-plane --port <n> [options]

  --port <n>                  port to listen on (0 picks a free one)
  --host <addr>               address to listen on (default 127.0.0.1)
  --api-key <key>[=<tenant-uuid>[,<tenant-uuid>...]]
                              an accepted API key, optionally with its tenants; repeatable
                              (default: one key "${DEFAULT_API_KEY}" with one tenant)
  --rate-limit <count>/<seconds>|off
                              fixed-window limit per key (default 1000/10)
  --no-retry-after            do not send Retry-After on 429
  --revision-phase-ms <n>     time a revision spends in each state (default 1000; 0 = instant)
  --trace-delete-delay <d>    platform data API: when the simulated weekend job removes
                              deleted traces, e.g. 2s, 500ms, 1h (default 2s)
`;

export class UsageError extends Error {}

function parseApiKey(value: string): ApiKeyGrant {
  const separator = value.indexOf('=');
  if (separator < 0) {
    if (value === '') throw new UsageError('--api-key: the key must not be empty');
    return { key: value };
  }
  const key = value.slice(0, separator);
  const tenantIds = value
    .slice(separator + 1)
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (key === '') throw new UsageError('--api-key: the key must not be empty');
  if (tenantIds.length === 0) throw new UsageError('--api-key: list at least one tenant uuid after "="');
  for (const tenantId of tenantIds) {
    if (!isUuid(tenantId)) throw new UsageError(`--api-key: tenant "${tenantId}" is not a uuid`);
  }
  return { key, tenantIds };
}

function parseRateLimit(value: string): RateLimitConfig | 'off' {
  if (value === 'off') return 'off';
  const match = /^(\d+)\/(\d+(?:\.\d+)?)$/.exec(value);
  const count = Number(match?.[1]);
  const windowSeconds = Number(match?.[2]);
  if (!match || count < 1 || !(windowSeconds > 0)) {
    throw new UsageError('--rate-limit must be <count>/<seconds> with count >= 1 and seconds > 0, or off');
  }
  return { count, windowSeconds };
}

function parseNonNegativeInteger(flag: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} must be a non-negative integer`);
  return Number(value);
}

export function parseEmulatorArgs(argv: string[]): ControlPlaneEmulatorOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'api-key': { type: 'string', multiple: true },
      'rate-limit': { type: 'string' },
      'no-retry-after': { type: 'boolean' },
      'revision-phase-ms': { type: 'string' },
      'trace-delete-delay': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return 'help';
  if (values.port === undefined) throw new UsageError('--port is required (0 picks a free port)');
  const port = parseNonNegativeInteger('--port', values.port);
  if (port > 65535) throw new UsageError('--port must be at most 65535');
  const options: ControlPlaneEmulatorOptions = { port, host: values.host ?? '127.0.0.1' };
  if (values['api-key']) options.apiKeys = values['api-key'].map(parseApiKey);
  if (values['rate-limit'] !== undefined) options.rateLimit = parseRateLimit(values['rate-limit']);
  if (values['no-retry-after']) options.retryAfter = false;
  if (values['revision-phase-ms'] !== undefined) {
    options.revisionPhaseMs = parseNonNegativeInteger('--revision-phase-ms', values['revision-phase-ms']);
  }
  if (values['trace-delete-delay'] !== undefined) {
    options.traceDeleteDelayMs = parseDelay('--trace-delete-delay', values['trace-delete-delay']);
  }
  return options;
}

const DELAY_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function parseDelay(flag: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(value);
  const unit = match?.[2];
  if (match === null || unit === undefined)
    throw new UsageError(`${flag} must be a duration such as 500ms, 2s, 5m or 1h`);
  return Number(match[1]) * (DELAY_UNITS_MS[unit] ?? 1);
}

export async function main(argv: string[]): Promise<number> {
  let options: ControlPlaneEmulatorOptions | 'help';
  try {
    options = parseEmulatorArgs(argv);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const logger = createLogger({ name: 'control-plane-emulator' });
  const emulator = await startControlPlaneEmulator(options);
  process.stdout.write(`control-plane emulator listening on ${emulator.url}\n`);
  logger.info(
    {
      url: emulator.url,
      keys: options.apiKeys?.length ?? 1,
      revisionPhaseMs: options.revisionPhaseMs ?? 1000,
    },
    'control-plane emulator started',
  );
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  logger.info({ signal }, 'control-plane emulator stopping');
  await emulator.close();
  return 0;
}
