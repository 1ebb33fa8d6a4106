// What every client of the platform's HTTP APIs is built from: the endpoint, the credential's
// fingerprint, the rate budget (shared when given), the connection pool and the executor. The
// control-plane client and the platform data client assemble them the same way, here.
import { credentialFingerprint } from '../budget/credential-fingerprint.js';
import { RateBudget } from '../budget/rate-budget.js';
import { systemClock } from '../budget/clock.js';
import {
  authHeaders,
  credentialSecret,
  resolveEndpoint,
  userAgent,
  validateCredentials,
  type ControlPlaneClientOptions,
  type Endpoint,
} from './config.js';
import { HttpTransport } from './http-transport.js';
import { noopClientMetrics } from './metrics.js';
import { RequestExecutor } from './request-executor.js';
import { DEFAULT_RETRY_POLICY, validateRetryPolicy } from './retry-policy.js';

export const DEFAULT_DEADLINE_MS = 30_000;
export const DEFAULT_MAX_BUDGET_WAIT_MS = 60_000;

export interface ClientParts {
  endpoint: Endpoint;
  credentialFingerprint: string;
  budget: RateBudget;
  transport: HttpTransport;
  executor: RequestExecutor;
}

/** Validates the options (throwing on a bad one) and builds the parts; `component` names the logger. */
export function assembleClientParts(options: ControlPlaneClientOptions, component: string): ClientParts {
  const endpoint = resolveEndpoint(options);
  validateCredentials(options.credentials);
  const retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  validateRetryPolicy(retry);
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  if (!(deadlineMs > 0)) throw new Error(`deadlineMs must be > 0 (got ${String(deadlineMs)})`);
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const userAgentHeader = userAgent(options.userAgentIdentity);
  const secret = credentialSecret(options.credentials);
  const fingerprint = credentialFingerprint(secret);
  const budget =
    options.budget ??
    new RateBudget({
      region: endpoint.region,
      ...(options.rateLimits === undefined ? {} : { overrides: options.rateLimits }),
      ...(options.safetyMargin === undefined ? {} : { safetyMargin: options.safetyMargin }),
      ...(options.adaptation === undefined ? {} : { adaptation: options.adaptation }),
      clock,
      random,
    });
  const transport = new HttpTransport(
    endpoint.origin,
    clock,
    options.connections,
    process.env,
    options.addressPolicy,
  );
  const executor = new RequestExecutor({
    transport,
    budget,
    pathPrefix: endpoint.pathPrefix,
    headers: {
      accept: 'application/json',
      'user-agent': userAgentHeader,
      ...authHeaders(options.credentials),
    },
    credentialSecret: secret,
    credentialFingerprint: fingerprint,
    retry,
    maxBudgetWaitMs: options.maxBudgetWaitMs ?? DEFAULT_MAX_BUDGET_WAIT_MS,
    ...(options.mayCall === undefined ? {} : { mayCall: options.mayCall }),
    deadlineMs,
    clock,
    random,
    metrics: options.metrics ?? noopClientMetrics,
    ...(options.logger === undefined ? {} : { logger: options.logger.child({ component }) }),
  });
  return { endpoint, credentialFingerprint: fingerprint, budget, transport, executor };
}

/** The common ground of the HTTP API clients: the parts above, and closing the pool. */
export abstract class HttpApiClient {
  readonly endpoint: Endpoint;
  /** Identifies the credential in logs and metrics; not reversible to the key. */
  readonly credentialFingerprint: string;
  readonly budget: RateBudget;
  protected readonly transport: HttpTransport;
  protected readonly executor: RequestExecutor;

  protected constructor(options: ControlPlaneClientOptions, component: string) {
    const parts = assembleClientParts(options, component);
    this.endpoint = parts.endpoint;
    this.credentialFingerprint = parts.credentialFingerprint;
    this.budget = parts.budget;
    this.transport = parts.transport;
    this.executor = parts.executor;
  }

  /** Closes the connection pool. The budget stays usable (it may be shared). */
  async close(): Promise<void> {
    await this.transport.close();
  }
}
