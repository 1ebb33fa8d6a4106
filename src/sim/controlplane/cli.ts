// `agent-operator emulate control-plane`: serves the emulator until SIGINT or SIGTERM.
// Prints, once it listens, one stdout line with the base URL, then one with the address
// pattern of the deployments' agent runtimes.
import { parseArgs } from 'node:util';
import { createLogger } from '../../observability/logger.js';
import { ADMIN_TOKEN_ENV } from './admin-guard.js';
import { API_KEYS_ENV, keySpecs, readKeyFile } from './key-file.js';
import type { ApiKeyGrant } from './auth.js';
import { isUuid } from './ids.js';
import {
  DEFAULT_API_KEY,
  agentUrl,
  startControlPlaneEmulator,
  type ControlPlaneEmulatorOptions,
} from './index.js';
import type { RateLimitConfig } from './rate-limiter.js';

const USAGE = `Usage: agent-operator emulate control-plane [flags]

Serves the control-plane emulator (plain HTTP) and prints its URL on one line.

  --port <n>                  port to listen on (default 0: any free port)
  --host <addr>               address to listen on (default 127.0.0.1)
  --api-key <key>[=<tenant-uuid>[,<tenant-uuid>...]]
                              an accepted API key, optionally with its tenants; repeatable
                              (default: one key "${DEFAULT_API_KEY}" with one tenant)
  --api-key-file <path>       read keys (same form as --api-key) from a file, one per line
                              or separated by whitespace; also from $${API_KEYS_ENV}
  --admin-token <token>       bearer token of the admin API under /_emulator/ (also from
                              $${ADMIN_TOKEN_ENV}; default: generated, printed on stderr)
  --rate-limit <count>/<seconds>|off
                              fixed-window limit per key (default 1000/10)
  --no-retry-after            do not send Retry-After on 429
  --revision-phase-ms <n>     time a revision spends in each state (default 1000; 0 = instant)
  --log-level <level>         silent | error | warn | info | debug (default info, to stderr)
  --trace-delete-delay <d>    platform data API: when the simulated weekend job removes
                              deleted traces, e.g. 2s, 500ms, 1h (default 2s)
  -h, --help                  show this help

Examples:
  agent-operator emulate control-plane
  agent-operator emulate control-plane --port 8000 --revision-phase-ms 200
  agent-operator emulate control-plane --api-key team-key=0b7c2c5e-6f5d-4a4e-9a37-1c0d2e3f4a5b --rate-limit off

Each deployment with a DEPLOYED revision also serves its agent runtime at
<url>/agents/<deployment id> (its custom_url), with the keys above.
Admin API under /_emulator/ (reset, faults, counters): see docs/control-plane-emulator.md.
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

const LOG_LEVELS = ['silent', 'error', 'warn', 'info', 'debug'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

/** The emulator's options, plus the CLI's own log level (as for `emulate kube`). */
export type EmulatorCliOptions = ControlPlaneEmulatorOptions & { logLevel?: LogLevel };

function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

export function parseEmulatorArgs(
  argv: string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): EmulatorCliOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'api-key': { type: 'string', multiple: true },
      'api-key-file': { type: 'string' },
      'admin-token': { type: 'string' },
      'rate-limit': { type: 'string' },
      'no-retry-after': { type: 'boolean' },
      'revision-phase-ms': { type: 'string' },
      'log-level': { type: 'string' },
      'trace-delete-delay': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return 'help';
  const port = parseNonNegativeInteger('--port', values.port ?? '0');
  if (port > 65535) throw new UsageError('--port must be at most 65535');
  const options: EmulatorCliOptions = { port, host: values.host ?? '127.0.0.1' };
  const logLevel = values['log-level'];
  if (logLevel !== undefined) {
    if (!isLogLevel(logLevel)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
    options.logLevel = logLevel;
  }
  const specs = [
    ...(values['api-key'] ?? []),
    ...(values['api-key-file'] === undefined ? [] : readKeyFile(values['api-key-file'])),
  ];
  if (specs.length === 0) specs.push(...keySpecs(env[API_KEYS_ENV] ?? ''));
  if (specs.length > 0) options.apiKeys = specs.map(parseApiKey);
  const adminToken = values['admin-token'] ?? env[ADMIN_TOKEN_ENV];
  if (adminToken !== undefined) {
    if (!/^\S+$/.test(adminToken)) throw new UsageError('--admin-token must be non-empty with no whitespace');
    options.adminToken = adminToken;
  }
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
  let options: EmulatorCliOptions | 'help';
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
  const { logLevel, ...emulatorOptions } = options;
  const logger = createLogger({ name: 'control-plane-emulator', level: logLevel ?? 'info' });
  const generated = emulatorOptions.adminToken === undefined;
  const emulator = await startControlPlaneEmulator(emulatorOptions);
  process.stdout.write(`control-plane emulator listening on ${emulator.url}\n`);
  process.stdout.write(`agent runtimes at ${agentUrl(emulator.url, '<deployment id>')}\n`);
  logger.info(
    {
      url: emulator.url,
      keys: options.apiKeys?.length ?? 1,
      revisionPhaseMs: options.revisionPhaseMs ?? 1000,
    },
    'control-plane emulator started',
  );
  // A generated admin token is printed once, on stderr, so that stdout keeps its one line.
  if (generated) {
    process.stderr.write(
      `control-plane emulator admin token (generated; set --admin-token or ${ADMIN_TOKEN_ENV} to choose one): ${emulator.adminToken}\n`,
    );
  }
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  logger.info({ signal }, 'control-plane emulator stopping');
  await emulator.close();
  return 0;
}
