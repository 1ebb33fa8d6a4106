// `agent-operator emulate control-plane`: serves the emulator until SIGINT or SIGTERM.
// Prints, once it listens, one stdout line with the base URL, then one with the address
// pattern of the deployments' agent runtimes.
import { parseArgs } from 'node:util';
import { createLogger } from '../../observability/logger.js';
import { ADMIN_TOKEN_ENV, generateAdminToken } from './admin-guard.js';
import { API_KEYS_ENV, keySpecs, readKeyFile } from './key-file.js';
import type { ApiKeyGrant } from '../http/api-keys.js';
import { isUuid } from '../http/ids.js';
import {
  DEFAULT_API_KEY,
  agentUrl,
  startControlPlaneEmulator,
  type ControlPlaneEmulatorOptions,
} from './index.js';
import { pathPrefixProblem } from './path-prefix.js';
import type { RateLimitConfig } from '../http/rate-limiter.js';
import {
  EMULATED_REGIONS,
  startRegionalEmulators,
  type EmulatedRegion,
  type RegionSetup,
} from './regions.js';

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
  --path-prefix </prefix>     serve the whole API under this prefix, as a self-hosted install does
  --region us|eu              serve this region, on its own port (the next free one when --port is
                              not 0), with its own keys, rate limit and state; repeatable.
                              With regions, --api-key and --rate-limit may start with "us:" or
                              "eu:" to apply to one region only (default key: emulator-key-<region>)
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

/** What the command runs: one emulator, or one per region; plus the CLI's own log level. */
export type EmulatorCommand = ControlPlaneEmulatorOptions & { regions?: RegionSetup[]; logLevel?: LogLevel };

function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/** Splits "eu:value" into its region and value; a value without a region prefix applies to all. */
function regional(value: string): { region?: EmulatedRegion; value: string } {
  const match = /^(us|eu):(.*)$/.exec(value);
  return match ? { region: match[1] as EmulatedRegion, value: match[2] ?? '' } : { value };
}

export function parseEmulatorArgs(
  argv: string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): EmulatorCommand | 'help' {
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
      'path-prefix': { type: 'string' },
      region: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return 'help';
  const port = parseNonNegativeInteger('--port', values.port ?? '0');
  if (port > 65535) throw new UsageError('--port must be at most 65535');
  const options: EmulatorCommand = { port, host: values.host ?? '127.0.0.1' };
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
  const adminToken = values['admin-token'] ?? env[ADMIN_TOKEN_ENV];
  if (adminToken !== undefined) {
    if (!/^\S+$/.test(adminToken)) throw new UsageError('--admin-token must be non-empty with no whitespace');
    options.adminToken = adminToken;
  }
  if (values['no-retry-after']) options.retryAfter = false;
  if (values['revision-phase-ms'] !== undefined) {
    options.revisionPhaseMs = parseNonNegativeInteger('--revision-phase-ms', values['revision-phase-ms']);
  }
  if (values['trace-delete-delay'] !== undefined) {
    options.traceDeleteDelayMs = parseDelay('--trace-delete-delay', values['trace-delete-delay']);
  }
  if (values['path-prefix'] !== undefined) {
    const problem = pathPrefixProblem(values['path-prefix']);
    if (problem !== undefined) throw new UsageError(`--${problem.replace('pathPrefix', 'path-prefix')}`);
    options.pathPrefix = values['path-prefix'];
  }
  const regions = values.region ?? [];
  if (regions.length === 0) {
    if (specs.length > 0) options.apiKeys = specs.map(parseApiKey);
    if (values['rate-limit'] !== undefined) options.rateLimit = parseRateLimit(values['rate-limit']);
    return options;
  }
  for (const region of regions) {
    if (!(EMULATED_REGIONS as readonly string[]).includes(region)) {
      throw new UsageError(`--region must be one of ${EMULATED_REGIONS.join(', ')} (got "${region}")`);
    }
  }
  if (new Set(regions).size !== regions.length) throw new UsageError('--region: each region only once');
  const keys = specs.map(regional);
  const limits =
    (values['rate-limit'] ?? undefined) === undefined ? [] : [regional(values['rate-limit'] ?? '')];
  options.regions = regions.map((name, index) => {
    const region = name as EmulatedRegion;
    const own = keys
      .filter((k) => k.region === undefined || k.region === region)
      .map((k) => parseApiKey(k.value));
    const limit = limits.find((l) => l.region === undefined || l.region === region);
    const { regions: _all, logLevel: _level, ...shared } = options;
    return {
      region,
      options: {
        ...shared,
        // Consecutive ports from a fixed one; each picks its own free port from 0.
        port: port === 0 ? 0 : port + index,
        apiKeys: own.length > 0 ? own : [{ key: `${DEFAULT_API_KEY}-${region}` }],
        ...(limit === undefined ? {} : { rateLimit: parseRateLimit(limit.value) }),
      },
    };
  });
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
  let options: EmulatorCommand | 'help';
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
  // One admin token for every region, printed once.
  const adminToken = emulatorOptions.adminToken ?? generateAdminToken();
  if (generated) {
    // On stderr, so that stdout keeps its URL lines.
    process.stderr.write(
      `control-plane emulator admin token (generated; set --admin-token or ${ADMIN_TOKEN_ENV} to choose one): ${adminToken}\n`,
    );
  }
  if (emulatorOptions.regions !== undefined) {
    return serveRegions(
      emulatorOptions.regions.map((setup) => ({
        ...setup,
        options: { ...setup.options, adminToken, logger: logger.child({ region: setup.region }) },
      })),
      logger,
    );
  }
  const emulator = await startControlPlaneEmulator({ ...emulatorOptions, adminToken, logger });
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
  const signal = await stopSignal();
  logger.info({ signal }, 'control-plane emulator stopping');
  await emulator.close();
  return 0;
}

/** One stdout line per region: `control-plane emulator (eu) listening on <url>`. */
async function serveRegions(setups: RegionSetup[], logger: ReturnType<typeof createLogger>): Promise<number> {
  const emulators = await startRegionalEmulators(setups);
  for (const { region, url } of emulators.regions) {
    process.stdout.write(`control-plane emulator (${region}) listening on ${url}\n`);
  }
  logger.info(
    { regions: emulators.regions.map(({ region, url }) => ({ region, url })) },
    'control-plane emulators started',
  );
  const signal = await stopSignal();
  logger.info({ signal }, 'control-plane emulators stopping');
  await emulators.close();
  return 0;
}

function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}
