// Runs one control-plane call: budget, send, classify, adapt, retry. Every outgoing request of
// the client passes here, so this is where the budget is spent, 429s are fed back, metrics
// are counted and the retry rules are enforced.
import type { Logger } from 'pino';
import { AbortedError, sleep, type Clock, type RandomSource } from '../budget/clock.js';
import { serverRateStateFrom } from '../budget/rate-limit-headers.js';
import type { BudgetPriority, BudgetRequest, RateBudget } from '../budget/rate-budget.js';
import {
  classifyResponse,
  classifyTransportFailure,
  type AttemptContext,
  type AttemptFailure,
  type ResponseSchema,
} from './classify.js';
import type { ControlPlaneError, Result } from './errors.js';
import type { Transport } from './http-transport.js';
import type { ClientMetrics } from './metrics.js';
import { backoffDelayMs, mayRetry, type RetryPolicy } from './retry-policy.js';

export interface CallOptions {
  /** Wait for rate budget (default true). False: return Throttled at once, sending nothing, when the budget is empty. */
  waitForBudget?: boolean;
  /** Aborts the whole call, waits and retries included. */
  signal?: AbortSignal;
  /** Per-attempt deadline in ms; default: the client's. */
  deadlineMs?: number;
  /** `bulk` yields the shared rate budget to interactive calls (default: interactive). */
  priority?: BudgetPriority;
  /**
   * The caller took the first attempt's token itself (RateBudget.reserve), before writing what
   * must come before the request; retries take their own.
   */
  firstTokenTaken?: boolean;
}

export interface CallSpec<T> {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The route template (metrics label, messages): never an id. */
  route: string;
  /** The filled route, without the base URL's prefix. */
  path: string;
  query?: string;
  body?: unknown;
  /** Secret values inside the body, scrubbed from any text a response echoes. */
  bodySecrets?: readonly string[];
  schema: ResponseSchema<T>;
}

export interface ExecutorDependencies {
  transport: Transport;
  budget: RateBudget;
  pathPrefix: string;
  /** Credential and fixed headers (accept, user agent); never logged. */
  headers: Record<string, string>;
  credentialSecret: string;
  credentialFingerprint: string;
  retry: RetryPolicy;
  /** A wait for budget longer than this returns Throttled instead (e.g. a Retry-After of an hour). */
  maxBudgetWaitMs: number;
  deadlineMs: number;
  clock: Clock;
  random: RandomSource;
  metrics: ClientMetrics;
  logger?: Logger;
  /** Asked right before each request is sent; false: not sent (this replica does not hold the lease). */
  mayCall?: () => boolean;
}

export class RequestExecutor {
  constructor(private readonly deps: ExecutorDependencies) {}

  async execute<T>(spec: CallSpec<T>, options: CallOptions = {}): Promise<Result<T>> {
    const { deps } = this;
    const waitForBudget = options.waitForBudget ?? true;
    const fullPath = `${deps.pathPrefix}${spec.path}`;
    const budgetRequest: BudgetRequest = {
      method: spec.method,
      path: fullPath,
      credentialFingerprint: deps.credentialFingerprint,
      ...(options.priority === undefined ? {} : { priority: options.priority }),
    };
    const secrets = [deps.credentialSecret, ...(spec.bodySecrets ?? [])];
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const headers =
      body === undefined ? deps.headers : { ...deps.headers, 'content-type': 'application/json' };
    let lastFailure: AttemptFailure | undefined;

    for (let attempt = 1; attempt <= deps.retry.maxAttempts; attempt += 1) {
      const admitted =
        attempt === 1 && options.firstTokenTaken === true
          ? this.taken()
          : await this.admit(spec, budgetRequest, waitForBudget, attempt - 1, options.signal);
      if (admitted !== true) {
        // Aborted while waiting to retry: the earlier failure says more (and keeps its `unclear`).
        const error =
          admitted.kind === 'Throttled' || lastFailure === undefined
            ? admitted
            : this.finalError(lastFailure, budgetRequest);
        return { ok: false, error };
      }

      // The last moment before sending: a replica that lost its lease (even one that has not
      // heard so yet, just resumed from a freeze) sends nothing: no write, and no read that
      // would spend the budget of the key it shares with the new leader.
      if (deps.mayCall?.() === false) {
        return {
          ok: false,
          error: {
            kind: 'Transient',
            method: spec.method,
            route: spec.route,
            attempts: attempt,
            unclear: false,
            message: `${spec.method} ${spec.route}: not sent: this replica does not hold the lease`,
          },
        };
      }
      const startedAt = deps.clock.now();
      const result = await deps.transport.send({
        method: spec.method,
        path: `${fullPath}${spec.query ?? ''}`,
        headers,
        ...(body === undefined ? {} : { body }),
        deadlineMs: options.deadlineMs ?? deps.deadlineMs,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      const seconds = (deps.clock.now() - startedAt) / 1000;
      const context: AttemptContext = {
        method: spec.method,
        route: spec.route,
        attempts: attempt,
        secrets,
        wallClockMs: Date.now(),
      };
      const outcome =
        result.type === 'response'
          ? classifyResponse(context, result, spec.schema)
          : classifyTransportFailure(context, result);
      const code = result.type === 'response' ? String(result.status) : result.cause;
      deps.metrics.requestDone({ route: spec.route, method: spec.method, code, seconds });
      deps.logger?.debug(
        {
          method: spec.method,
          route: spec.route,
          code,
          attempt,
          ms: Math.round(seconds * 1000),
          credential: deps.credentialFingerprint,
        },
        'control-plane request',
      );

      if (result.type === 'response') {
        if (result.status === 429) {
          deps.budget.throttled(
            budgetRequest,
            startedAt,
            outcome.type === 'failure' ? outcome.retryAfterMs : undefined,
          );
          deps.metrics.throttled({ route: spec.route });
        } else {
          deps.budget.answered(budgetRequest, serverRateStateFrom(result.headers, Date.now()));
        }
      }
      if (outcome.type === 'success') return { ok: true, value: outcome.value };
      lastFailure = outcome;

      // The operator asked not to be held: a 429 is handed back for a requeue.
      if (outcome.error.kind === 'Throttled' && !waitForBudget)
        return { ok: false, error: this.finalError(outcome, budgetRequest) };
      const canRetry = mayRetry({
        method: spec.method,
        retryable: outcome.retryable,
        neverReached: outcome.neverReached,
      });
      if (!canRetry || attempt === deps.retry.maxAttempts || options.signal?.aborted === true) {
        return { ok: false, error: this.finalError(outcome, budgetRequest) };
      }
      // A 429's wait is the budget's (it is now blocked/tightened); other failures back off here.
      const delayMs =
        outcome.error.kind === 'Throttled'
          ? 0
          : Math.max(backoffDelayMs(attempt, deps.retry, deps.random), outcome.retryAfterMs ?? 0);
      if (delayMs > deps.retry.maxDelayMs)
        return { ok: false, error: this.finalError(outcome, budgetRequest) };
      deps.metrics.retried({ route: spec.route, reason: outcome.reason });
      deps.logger?.debug(
        {
          method: spec.method,
          route: spec.route,
          reason: outcome.reason,
          attempt,
          delayMs: Math.round(delayMs),
        },
        'control-plane retry',
      );
      try {
        await sleep(deps.clock, delayMs, options.signal);
      } catch {
        return { ok: false, error: this.finalError(outcome, budgetRequest) };
      }
    }
    // Unreachable: the loop returns on its last attempt.
    throw new Error('retry loop ended without a result');
  }

  /** The first attempt's token was taken by the caller: sent at once, with no wait. */
  private taken(): true {
    this.deps.metrics.budgetWaited(0);
    return true;
  }

  /**
   * Gets a token for the next attempt, or the error to return instead: Throttled when the
   * caller will not wait or the wait is longer than any backoff we would sleep, Transient when aborted.
   */
  private async admit(
    spec: CallSpec<unknown>,
    request: BudgetRequest,
    waitForBudget: boolean,
    attemptsSoFar: number,
    signal: AbortSignal | undefined,
  ): Promise<true | ControlPlaneError> {
    const { deps } = this;
    const base = { method: spec.method, route: spec.route, attempts: attemptsSoFar };
    const throttled = (waitMs: number): ControlPlaneError => ({
      kind: 'Throttled',
      ...base,
      retryAfterMs: Math.ceil(waitMs),
      message: `${spec.method} ${spec.route}: rate budget exhausted locally; retry after ${Math.ceil(waitMs)} ms`,
    });
    if (!waitForBudget) {
      const reservation = deps.budget.reserve(request);
      if (!reservation.ok) return throttled(reservation.waitMs);
      // Sent at once: a wait of 0 belongs in the histogram, or its quantiles have no data.
      deps.metrics.budgetWaited(0);
      return true;
    }
    const bucketWait = deps.budget.peekWaitMs(request);
    if (bucketWait > deps.maxBudgetWaitMs) return throttled(bucketWait);
    try {
      const waitedMs = await deps.budget.acquire(request, signal);
      deps.metrics.budgetWaited(waitedMs / 1000);
      return true;
    } catch (error) {
      const why = error instanceof AbortedError ? error.message : 'budget wait failed';
      return { kind: 'Transient', ...base, unclear: false, message: `${spec.method} ${spec.route}: ${why}` };
    }
  }

  private finalError(failure: AttemptFailure, request: BudgetRequest): ControlPlaneError {
    const { error } = failure;
    const suffix = error.attempts > 1 ? ` (after ${error.attempts} attempts)` : '';
    if (error.kind === 'Throttled') {
      const retryAfterMs = Math.ceil(
        Math.max(failure.retryAfterMs ?? 0, this.deps.budget.peekWaitMs(request)),
      );
      return { ...error, retryAfterMs, message: `${error.message}${suffix}` };
    }
    return { ...error, message: `${error.message}${suffix}` };
  }
}
