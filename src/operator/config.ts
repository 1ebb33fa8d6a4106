// `agent-operator run` configuration: flags first, then AGENT_OPERATOR_* environment
// variables, then defaults. Every error names the flag (or variable) and the rule. The API
// key is read from a file or the environment only: a flag value would show in `ps`.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_TIMINGS } from '../reconcilers/agentdeployment/defaults.js';
import { DURATION_RULE, parseDurationFlag } from '../command-line/duration-flag.js';
import { flagProblem } from '../command-line/flag-error.js';
import { insecureUrlProblem } from '../egress/insecure-url.js';
import { DEFAULT_DELETION_TIMINGS } from '../reconcilers/deletion/ports.js';
import { parseHostPatterns, type HostPattern } from '../egress/host-patterns.js';
import { SHARD_NAME, SHARD_NAME_RULE } from './shard.js';

export type Region = 'us' | 'eu';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface OperatorConfig {
  kubeconfig?: string;
  /** --context: a context of the kubeconfig other than its current one. */
  context?: string;
  controlPlaneUrl?: string;
  region: Region;
  /** Never logged; held only to build the client's credentials. */
  apiKey: string;
  tenantId?: string;
  /** Empty: all namespaces. */
  namespaces: string[];
  concurrency: number;
  resyncPeriodMs: number;
  leaderElect: boolean;
  leaderElectionNamespace: string;
  leaderElectionId: string;
  /**
   * --shard: serve only the objects labelled agentplatform.io/shard=<name> (`default`: those
   * without the label), under the Lease `<leaderElectionId>-<name>`; absent: every object.
   */
  shard?: string;
  metricsBindAddress: { host: string; port: number };
  logLevel: LogLevel;
  rateLimit?: { count: number; windowSeconds: number };
  /** In-flight revision poll interval (batched). */
  pollIntervalMs: number;
  /** --push-poll-period: how often a deployment that builds on push is listed to follow it (batched; default 10 s). */
  pushPollMs?: number;
  /** --allow-insecure: the key may travel over plain http off this machine (control plane and agents). */
  allowInsecure?: boolean;
  /**
   * Namespaces whose objects may adopt an existing deployment they did not orphan; undefined:
   * every watched namespace (`*`), empty (the default): none. A namespace may always adopt
   * back what its own objects orphaned.
   */
  adoptionNamespaces?: string[];
  /** --agent-hosts: tenant-chosen agent hosts the default connection's key may be sent to (absent: none). */
  agentHosts?: HostPattern[];
  /** --data-deletion-namespaces: who may delete data through the default connection (absent: the operator's namespace). */
  dataDeletionNamespaces?: readonly string[] | 'all';
  /** --allow-private-networks: tenant-chosen URLs may reach loopback and private addresses. */
  allowPrivateNetworks?: boolean;
  /** Mean time between checks that deleted traces are gone (default 6h). */
  deletionVerifyIntervalMs?: number;
  /** How long after submission surviving traces fail a TraceDeletion (default 14 days). */
  deletionVerifyDeadlineMs?: number;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export const RUN_USAGE = `Usage: agent-operator run [flags]

  --kubeconfig <path>                 KUBECONFIG; default: in-cluster, then ~/.kube/config
  --context <name>                    a context of that kubeconfig (default: its current-context)
  --control-plane-url <url>           AGENT_OPERATOR_CONTROL_PLANE_URL (overrides --region)
  --region us|eu                      AGENT_OPERATOR_REGION (default us)
  --allow-insecure                    AGENT_OPERATOR_ALLOW_INSECURE=true: accept an http:// URL off this machine
  --api-key-file <path>               or the environment variable AGENT_OPERATOR_API_KEY
  --tenant-id <uuid>                  AGENT_OPERATOR_TENANT_ID
  --namespaces a,b                    AGENT_OPERATOR_NAMESPACES (default: all namespaces)
  --adoption-namespaces a,b|*         AGENT_OPERATOR_ADOPTION_NAMESPACES: where spec.adoptExisting may adopt
                                      a deployment it did not orphan itself (default '': none; *: every
                                      watched namespace); a namespace always adopts back its own orphans
  --agent-hosts h,*.d,h:port          AGENT_OPERATOR_AGENT_HOSTS: tenant-chosen agent URLs the default
                                      connection's key may be sent to (default: none)
  --data-deletion-namespaces a,b|*    AGENT_OPERATOR_DATA_DELETION_NAMESPACES: who may delete traces and
                                      examples through the default connection (default: the operator's namespace)
  --allow-private-networks            AGENT_OPERATOR_ALLOW_PRIVATE_NETWORKS=true: tenant-chosen URLs may reach
                                      loopback and private addresses (link-local and metadata: never)
  --concurrency <n>                   AGENT_OPERATOR_CONCURRENCY (default 16): reconcile workers per controller
  --resync-period <duration>          AGENT_OPERATOR_RESYNC_PERIOD (default 10m)
  --poll-interval <duration>          AGENT_OPERATOR_POLL_INTERVAL (default 2s): in-flight revisions
  --push-poll-period <duration>       AGENT_OPERATOR_PUSH_POLL_PERIOD (default 10s, at least 1s): how often
                                      a deployment that builds on push is listed for a pushed revision
  --leader-elect                      AGENT_OPERATOR_LEADER_ELECT=true
  --leader-election-namespace <ns>    POD_NAMESPACE (default: the service account's namespace, else default)
  --leader-election-id <name>         default agent-operator
  --shard <name>                      AGENT_OPERATOR_SHARD: serve only objects labelled
                                      agentplatform.io/shard=<name>; 'default' serves those without the
                                      label; each shard has its own Lease (default: not sharded, every object)
  --metrics-bind-address <host:port>  default 0.0.0.0:8080 (/metrics, /healthz, /readyz)
  --log-level debug|info|warn|error   AGENT_OPERATOR_LOG_LEVEL (default info)
  --rate-limit <count>/<seconds>      AGENT_OPERATOR_RATE_LIMIT (default: the published 1000/10)
  --deletion-verify-interval <dur>    AGENT_OPERATOR_DELETION_VERIFY_INTERVAL (default 6h, jittered ±20%)
  --deletion-verify-deadline <dur>    AGENT_OPERATOR_DELETION_VERIFY_DEADLINE (default 336h = 14 days)
  -h, --help                          show this help

Durations are written 30s, 2m, 1h30m or 250ms; a bare number is seconds.
`;

const OPTIONS = {
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  'control-plane-url': { type: 'string' },
  region: { type: 'string' },
  'allow-insecure': { type: 'boolean' },
  'api-key-file': { type: 'string' },
  'tenant-id': { type: 'string' },
  namespaces: { type: 'string' },
  'adoption-namespaces': { type: 'string' },
  'agent-hosts': { type: 'string' },
  'data-deletion-namespaces': { type: 'string' },
  'allow-private-networks': { type: 'boolean' },
  concurrency: { type: 'string' },
  'resync-period': { type: 'string' },
  'poll-interval': { type: 'string' },
  'push-poll-period': { type: 'string' },
  'leader-elect': { type: 'boolean' },
  'leader-election-namespace': { type: 'string' },
  'leader-election-id': { type: 'string' },
  shard: { type: 'string' },
  'metrics-bind-address': { type: 'string' },
  'log-level': { type: 'string' },
  'rate-limit': { type: 'string' },
  'deletion-verify-interval': { type: 'string' },
  'deletion-verify-deadline': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';
const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ConfigSources {
  argv: string[];
  env: NodeJS.ProcessEnv;
  readFile?: (path: string) => string;
}

export function parseOperatorConfig({
  argv,
  env,
  readFile = (p) => readFileSync(p, 'utf8'),
}: ConfigSources): { help: true } | { help: false; config: OperatorConfig } {
  let values: ReturnType<
    typeof parseArgs<{ options: typeof OPTIONS; args: string[]; strict: true }>
  >['values'];
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new ConfigError(flagProblem(error));
  }
  if (values.help) return { help: true };

  const pick = (flag: keyof typeof OPTIONS, variable?: string): string | undefined => {
    const value = values[flag];
    if (typeof value === 'string') return value;
    return variable ? nonEmpty(env[variable]) : undefined;
  };

  const region = pick('region', 'AGENT_OPERATOR_REGION') ?? 'us';
  if (region !== 'us' && region !== 'eu')
    throw new ConfigError(`--region: must be "us" or "eu", got "${region}"`);

  const controlPlaneUrl = pick('control-plane-url', 'AGENT_OPERATOR_CONTROL_PLANE_URL');
  if (controlPlaneUrl !== undefined && !isHttpUrl(controlPlaneUrl)) {
    throw new ConfigError(`--control-plane-url: must be an http(s) URL, got "${controlPlaneUrl}"`);
  }
  const allowInsecure = values['allow-insecure'] ?? env.AGENT_OPERATOR_ALLOW_INSECURE === 'true';
  const insecure =
    controlPlaneUrl === undefined ? undefined : insecureUrlProblem(controlPlaneUrl, allowInsecure);
  if (insecure !== undefined) throw new ConfigError(`--control-plane-url: ${insecure}`);

  const apiKey = readApiKey(pick('api-key-file'), env, readFile);
  const tenantId = pick('tenant-id', 'AGENT_OPERATOR_TENANT_ID');
  if (tenantId !== undefined && !UUID.test(tenantId)) throw new ConfigError(`--tenant-id: must be a UUID`);

  // 16: a worker spends most of a create waiting on the control plane (a SaaS POST takes
  // 100-300 ms), so 4 workers capped a 1,000-object rollout at a third of its key's rate
  // (docs/benchmarks.md); a throttled worker costs nothing since a create takes its token first.
  const concurrency = integer(
    pick('concurrency', 'AGENT_OPERATOR_CONCURRENCY') ?? '16',
    '--concurrency',
    1,
    1000,
  );
  const resyncPeriodMs = optionalDuration(
    pick('resync-period', 'AGENT_OPERATOR_RESYNC_PERIOD'),
    '--resync-period',
    1_000,
    DEFAULT_TIMINGS.resyncPeriodMs,
  );
  const pollIntervalMs = optionalDuration(
    pick('poll-interval', 'AGENT_OPERATOR_POLL_INTERVAL'),
    '--poll-interval',
    100,
    DEFAULT_TIMINGS.inflightPollMs,
  );
  // Each follow is a list call per 100 followed deployments: under a second would spend the budget.
  const pushPollMs = optionalDuration(
    pick('push-poll-period', 'AGENT_OPERATOR_PUSH_POLL_PERIOD'),
    '--push-poll-period',
    1_000,
    DEFAULT_TIMINGS.pushPollMs,
  );
  const deletionVerifyIntervalMs = optionalDuration(
    pick('deletion-verify-interval', 'AGENT_OPERATOR_DELETION_VERIFY_INTERVAL'),
    '--deletion-verify-interval',
    1,
    DEFAULT_DELETION_TIMINGS.verifyIntervalMs,
  );
  const deletionVerifyDeadlineMs = optionalDuration(
    pick('deletion-verify-deadline', 'AGENT_OPERATOR_DELETION_VERIFY_DEADLINE'),
    '--deletion-verify-deadline',
    1,
    DEFAULT_DELETION_TIMINGS.verifyDeadlineMs,
  );

  const logLevel = pick('log-level', 'AGENT_OPERATOR_LOG_LEVEL') ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) {
    throw new ConfigError(`--log-level: must be one of debug, info, warn, error; got "${logLevel}"`);
  }

  const shard = pick('shard', 'AGENT_OPERATOR_SHARD')?.trim();
  if (shard !== undefined && !SHARD_NAME.test(shard)) {
    throw new ConfigError(`--shard: must be ${SHARD_NAME_RULE}; got "${shard}"`);
  }

  const rateLimitText = pick('rate-limit', 'AGENT_OPERATOR_RATE_LIMIT');
  const leaderElectEnv = env.AGENT_OPERATOR_LEADER_ELECT;
  const leaderElectionNamespace =
    pick('leader-election-namespace', 'POD_NAMESPACE') ?? serviceAccountNamespace(readFile) ?? 'default';
  let agentHosts: HostPattern[];
  try {
    agentHosts = parseHostPatterns(
      splitList(pick('agent-hosts', 'AGENT_OPERATOR_AGENT_HOSTS')),
      '--agent-hosts',
    );
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }
  return {
    help: false,
    config: {
      kubeconfig: pick('kubeconfig', 'KUBECONFIG'),
      ...(values.context === undefined ? {} : { context: values.context }),
      controlPlaneUrl,
      region,
      apiKey,
      ...(allowInsecure ? { allowInsecure } : {}),
      tenantId,
      namespaces: splitList(pick('namespaces', 'AGENT_OPERATOR_NAMESPACES')),
      ...adoptionNamespaces(values['adoption-namespaces'] ?? env.AGENT_OPERATOR_ADOPTION_NAMESPACES),
      agentHosts,
      dataDeletionNamespaces: namespaceList(
        values['data-deletion-namespaces'] ?? env.AGENT_OPERATOR_DATA_DELETION_NAMESPACES,
        '--data-deletion-namespaces',
        [leaderElectionNamespace],
      ),
      allowPrivateNetworks:
        values['allow-private-networks'] ?? env.AGENT_OPERATOR_ALLOW_PRIVATE_NETWORKS === 'true',
      concurrency,
      resyncPeriodMs,
      pollIntervalMs,
      pushPollMs,
      deletionVerifyIntervalMs,
      deletionVerifyDeadlineMs,
      leaderElect: values['leader-elect'] ?? (leaderElectEnv === 'true' || leaderElectEnv === '1'),
      leaderElectionNamespace,
      leaderElectionId: pick('leader-election-id') ?? 'agent-operator',
      ...(shard === undefined ? {} : { shard }),
      metricsBindAddress: hostPort(pick('metrics-bind-address') ?? '0.0.0.0:8080'),
      logLevel: logLevel as LogLevel,
      rateLimit: rateLimitText === undefined ? undefined : parseRateLimit(rateLimitText, '--rate-limit'),
    },
  };
}

export function readApiKey(
  path: string | undefined,
  env: NodeJS.ProcessEnv,
  readFile: (path: string) => string,
): string {
  if (path !== undefined) {
    let text: string;
    try {
      text = readFile(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new ConfigError(`--api-key-file: cannot read "${path}" (${code})`);
    }
    const key = text.trim();
    if (key === '') throw new ConfigError(`--api-key-file: "${path}" is empty`);
    return key;
  }
  const fromEnv = nonEmpty(env.AGENT_OPERATOR_API_KEY);
  if (fromEnv === undefined) {
    throw new ConfigError(
      'an API key is required: --api-key-file <path> or the environment variable AGENT_OPERATOR_API_KEY',
    );
  }
  return fromEnv.trim();
}

export function parseRateLimit(text: string, name: string): { count: number; windowSeconds: number } {
  const match = /^(\d+)\/(\d+(?:\.\d+)?)$/.exec(text.trim());
  const count = Number(match?.[1]);
  const windowSeconds = Number(match?.[2]);
  if (!match || count < 1 || windowSeconds <= 0) {
    throw new ConfigError(`${name}: must be <count>/<seconds> with count >= 1, e.g. 1000/10; got "${text}"`);
  }
  return { count, windowSeconds };
}

function integer(text: string, name: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name}: must be a whole number from ${min} to ${max}; got "${text}"`);
  }
  return value;
}

function optionalDuration(text: string | undefined, name: string, minMs: number, fallbackMs: number): number {
  return text === undefined ? fallbackMs : duration(text, name, minMs);
}

function duration(text: string, name: string, minMs: number): number {
  const value = parseDurationFlag(text);
  if (value === undefined || value < minMs) {
    throw new ConfigError(`${name}: must be ${DURATION_RULE}, at least ${minMs} ms; got "${text}"`);
  }
  return value;
}

export function hostPort(text: string): { host: string; port: number } {
  const match = /^(.*):(\d+)$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (!match || port > 65535)
    throw new ConfigError(`--metrics-bind-address: must be <host>:<port>; got "${text}"`);
  const host = (match[1] ?? '').replace(/^\[(.*)\]$/, '$1');
  return { host: host === '' ? '0.0.0.0' : host, port };
}

/** `*` permits every watched namespace; empty (the default) permits none. */
function adoptionNamespaces(text: string | undefined): { adoptionNamespaces?: string[] } {
  const names = namespaceList(text, '--adoption-namespaces', []);
  return names === 'all' ? {} : { adoptionNamespaces: [...names] };
}

/** A comma-separated list of namespace names, `*` for all; `fallback` when not given at all. */
function namespaceList(
  text: string | undefined,
  flag: string,
  fallback: readonly string[],
): readonly string[] | 'all' {
  if (text === undefined) return fallback;
  if (text.trim() === '*') return 'all';
  const names = splitList(text);
  const bad = names.find((name) => !NAMESPACE_NAME.test(name));
  if (bad !== undefined) {
    throw new ConfigError(
      `${flag}: "${bad}" is not a namespace name (lowercase letters, digits and '-', at most 63); use * for every watched namespace`,
    );
  }
  return names;
}

function splitList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text.trim() === '' ? undefined : text;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function serviceAccountNamespace(readFile: (path: string) => string): string | undefined {
  try {
    return nonEmpty(readFile(SERVICE_ACCOUNT_NAMESPACE).trim());
  } catch {
    return undefined;
  }
}
