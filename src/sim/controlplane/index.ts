// The control-plane emulator, in process: a plain node:http server implementing the
// spec's API from memory. Everything is lost when the process ends; restart() keeps it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeyRegistry, type ApiKeyGrant } from './auth.js';
import { FaultRegistry } from './faults.js';
import { isUuid } from './ids.js';
import { pathPrefixProblem, withPathPrefix } from './path-prefix.js';
import { FixedWindowRateLimiter, type RateLimitConfig } from './rate-limiter.js';
import { RequestPipeline } from './request-pipeline.js';
import type { EmulatorRuntime } from './runtime.js';
import { StatsCounter } from './stats.js';
import { EmulatorStore } from './store.js';

export type { ApiKeyGrant } from './auth.js';
export { tenantIdForKey } from './auth.js';
export { keyFingerprint } from './ids.js';

export interface ControlPlaneEmulatorOptions {
  host?: string;
  port?: number;
  apiKeys?: ApiKeyGrant[];
  rateLimit?: RateLimitConfig | 'off';
  retryAfter?: boolean;
  revisionPhaseMs?: number;
  /**
   * The emulator's clock in ms since the epoch (default Date.now). Revision states,
   * deployment status and rate-limit windows all read it, so tests can step time.
   */
  clock?: () => number;
  /** Serve the whole API under this prefix, as a self-hosted install does (e.g. /control-plane). */
  pathPrefix?: string;
}

export interface ControlPlaneEmulator {
  url: string;
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
  const runtime: EmulatorRuntime = {
    store: new EmulatorStore(
      [...keys.tenants().keys()],
      options.revisionPhaseMs ?? DEFAULT_REVISION_PHASE_MS,
      clock(),
    ),
    keys,
    limiter: new FixedWindowRateLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT),
    faults: new FaultRegistry(),
    stats: new StatsCounter(),
    settings: { retryAfter: options.retryAfter ?? true },
    clock,
  };
  const pipeline = new RequestPipeline(runtime);
  const newServer = (): Server => {
    const server = createServer(
      { keepAlive: true },
      withPathPrefix(pipeline.handle, options.pathPrefix ?? ''),
    );
    server.keepAliveTimeout = 30_000;
    return server;
  };

  let server = newServer();
  const port = await listen(server, options.port ?? 0, host);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}${options.pathPrefix ?? ''}`,
    close: () => shutdown(server),
    restart: async () => {
      await shutdown(server);
      server = newServer();
      await listen(server, port, host);
    },
  };
}
