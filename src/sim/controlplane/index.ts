// The control-plane emulator, in process: a plain node:http server implementing the
// spec's API from memory. Everything is lost when the process ends; restart() keeps it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, type Logger } from '../../observability/logger.js';
import { guardRequests, type RequestHandler } from '../http/request-guard.js';
import { AGENT_PATH_PREFIX, AgentRuntimeEmulator } from '../agents/index.js';
import { agentDirectory } from './agent-directory.js';
import { KeyRegistry, type ApiKeyGrant } from '../http/api-keys.js';
import { AdminGuard, generateAdminToken } from './admin-guard.js';
import { FaultRegistry } from '../http/faults.js';
import { isUuid } from '../http/ids.js';
import { writeJson } from '../http/http-io.js';
import { MALFORMED_PATH_DETAIL, pathDecodes } from '../http/path-decoding.js';
import { pathPrefixProblem, withPathPrefix } from './path-prefix.js';
import { FixedWindowRateLimiter, type RateLimitConfig } from '../http/rate-limiter.js';
import { RequestPipeline } from './request-pipeline.js';
import type { ApiCall, EmulatorRuntime } from './runtime.js';
import { StatsCounter } from '../http/stats.js';
import { EmulatorStore } from './store.js';
import { controlPlaneGuard } from '../http/unexpected-errors.js';
import { deploymentToWire } from './wire-views.js';
import { DEFAULT_TRACE_DELETE_DELAY_MS, PlatformDataApi, type PlatformRegion } from '../platform/index.js';

export type { ApiKeyGrant } from '../http/api-keys.js';
export { tenantIdForKey } from '../http/api-keys.js';
export { keyFingerprint } from '../http/ids.js';

/** Where a deployment's agent runtime answers once a revision of it is deployed. */
export function agentUrl(emulatorUrl: string, deploymentId: string): string {
  return `${emulatorUrl}${AGENT_PATH_PREFIX}${deploymentId}`;
}

export type { ApiCall } from './runtime.js';

export interface ControlPlaneEmulatorOptions {
  host?: string;
  port?: number;
  apiKeys?: ApiKeyGrant[];
  rateLimit?: RateLimitConfig | 'off';
  retryAfter?: boolean;
  revisionPhaseMs?: number;
  /** The bearer token the admin API under /_emulator/ requires; generated when absent. */
  adminToken?: string;
  /**
   * The emulator's clock in ms since the epoch (default Date.now). Revision states,
   * deployment status and rate-limit windows all read it, so tests can step time.
   */
  clock?: () => number;
  /** The platform data API served on the same address: the weekend job's delay (ms) and the rate table's column. */
  traceDeleteDelayMs?: number;
  platformRegion?: PlatformRegion;
  /** Serve the whole API under this prefix, as a self-hosted install does (e.g. /control-plane). */
  pathPrefix?: string;
  /** Where errors no handler expected are logged (a pino logger; silent by default). */
  logger?: Logger;
  /**
   * In process only: called as each API request (not admin) arrives, before faults, auth or
   * the limiter, with its caller's User-Agent: a test with two operator replicas tells
   * their calls apart by it (each puts its identity there).
   */
  onApiRequest?: (call: ApiCall) => void;
}

export interface ControlPlaneEmulator {
  url: string;
  /** Send as `Authorization: Bearer <adminToken>` on /_emulator/ requests. */
  adminToken: string;
  /**
   * In process only: every deployment of every tenant in the API's shape, secret values
   * included (the admin API's dump masks them; a test in the same process owns this memory anyway).
   */
  deployments(): Record<string, unknown>[];
  close(): Promise<void>;
  restart(): Promise<void>;
}

export const DEFAULT_API_KEY = 'emulator-key';
export const DEFAULT_RATE_LIMIT: RateLimitConfig = { count: 1000, windowSeconds: 10 };
export const DEFAULT_REVISION_PHASE_MS = 1000;

function validateOptions(options: ControlPlaneEmulatorOptions): void {
  const fail = (message: string): never => {
    throw new Error(`control-plane emulator: ${message}`);
  };
  if (
    options.port !== undefined &&
    (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535)
  ) {
    fail('port must be an integer from 0 to 65535');
  }
  if (options.apiKeys !== undefined && options.apiKeys.length === 0)
    fail('apiKeys must name at least one key');
  for (const [index, grant] of (options.apiKeys ?? []).entries()) {
    if (grant.key === '') fail(`apiKeys[${index}].key must not be empty`);
    for (const tenantId of grant.tenantIds ?? []) {
      if (!isUuid(tenantId)) fail(`apiKeys[${index}].tenantIds must be uuids`);
    }
  }
  const prefixProblem = pathPrefixProblem(options.pathPrefix ?? '');
  if (prefixProblem !== undefined) fail(prefixProblem);
  const rateLimit = options.rateLimit;
  if (rateLimit !== undefined && rateLimit !== 'off') {
    if (!Number.isInteger(rateLimit.count) || rateLimit.count < 1)
      fail('rateLimit.count must be an integer >= 1');
    if (!(rateLimit.windowSeconds > 0)) fail('rateLimit.windowSeconds must be > 0');
  }
  if (options.adminToken !== undefined && !/^\S+$/.test(options.adminToken))
    fail('adminToken must be non-empty and contain no whitespace');
  const delay = options.traceDeleteDelayMs;
  if (delay !== undefined && (!Number.isFinite(delay) || delay < 0))
    fail('traceDeleteDelayMs must be a number >= 0');
  const phase = options.revisionPhaseMs;
  if (phase !== undefined && (!Number.isFinite(phase) || phase < 0))
    fail('revisionPhaseMs must be a number >= 0');
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function shutdown(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export async function startControlPlaneEmulator(
  options: ControlPlaneEmulatorOptions = {},
): Promise<ControlPlaneEmulator> {
  validateOptions(options);
  const host = options.host ?? '127.0.0.1';
  const clock = options.clock ?? Date.now;
  const keys = new KeyRegistry(options.apiKeys ?? [{ key: DEFAULT_API_KEY }]);
  const adminToken = options.adminToken ?? generateAdminToken();
  const shared = {
    keys,
    limiter: new FixedWindowRateLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT),
    faults: new FaultRegistry(),
    stats: new StatsCounter(),
    settings: { retryAfter: options.retryAfter ?? true },
    clock,
    logger: options.logger ?? createLogger({ level: 'silent', name: 'control-plane-emulator' }),
  };
  const platform = new PlatformDataApi(shared, {
    traceDeleteDelayMs: options.traceDeleteDelayMs ?? DEFAULT_TRACE_DELETE_DELAY_MS,
    region: options.platformRegion ?? 'us',
  });
  const runtime: EmulatorRuntime = {
    ...shared,
    // A deployment's tracing project is a session of the platform data API served here.
    store: new EmulatorStore(
      [...keys.tenants().keys()],
      options.revisionPhaseMs ?? DEFAULT_REVISION_PHASE_MS,
      clock(),
      platform.tracingProjects,
    ),
    adminGuard: new AdminGuard(adminToken, host),
    onReset: [],
    ...(options.onApiRequest === undefined ? {} : { onApiRequest: options.onApiRequest }),
  };
  // A finished run is traced in its deployment's project, as the hosted runtime does.
  const directory = agentDirectory(runtime.store, keys, clock, (tenantId, name, trace, now) =>
    platform.tracingProjects.record(tenantId, name, trace, now),
  );
  const agents = new AgentRuntimeEmulator(directory, (error) =>
    runtime.logger.error({ err: error }, 'agent runtime emulator: a run failed inside the emulator'),
  );
  const pipeline = new RequestPipeline(runtime, agents);
  // The admin reset empties the platform data API's workspaces too, once the admin guard let it through.
  runtime.onReset.push(() => platform.reset());
  const serve: RequestHandler = (req, res) => {
    // Before any route table sees the path: every family answers an undecodable one alike.
    if (!pathDecodes(req.url ?? '/')) return writeJson(res, 400, { detail: MALFORMED_PATH_DETAIL });
    if (platform.owns(req.method ?? 'GET', req.url ?? '/')) return platform.handle(req, res);
    return pipeline.handle(req, res);
  };
  const newServer = (): Server => {
    const server = createServer(
      { keepAlive: true },
      guardRequests(withPathPrefix(serve, options.pathPrefix ?? ''), controlPlaneGuard(runtime.logger)),
    );
    server.keepAliveTimeout = 30_000;
    return server;
  };

  let server = newServer();
  const port = await listen(server, options.port ?? 0, host);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}${options.pathPrefix ?? ''}`;
  runtime.store.agentBaseUrl = agentUrl(url, '');
  return {
    url,
    close: () => shutdown(server),
    restart: async () => {
      await shutdown(server);
      server = newServer();
      await listen(server, port, host);
    },
    adminToken,
    deployments: () => {
      const now = clock();
      return runtime.store.allDeployments(now).map((r) => deploymentToWire(r, runtime.store.phaseMs, now));
    },
  };
}
