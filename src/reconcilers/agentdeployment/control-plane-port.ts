// Binds the reconciler's ControlPlanePort to the control-plane client. Every reconciler call
// is made with `waitForBudget: false`: when the budget is empty the call returns Throttled
// with the wait, and the reconcile requeues instead of holding a worker: at its own place in
// the budget's line (ThrottleLine), so that a thousand throttled objects do not all come back
// for the same next token.
import type { ControlPlaneApi, ControlPlaneError, Result } from '../../controlplane/client/index.js';
import type { Reservation } from '../../controlplane/budget/rate-budget.js';
import type { ControlPlanePort, CreateToken, Failure, Outcome } from './ports.js';
import { MAX_IDS_PER_LIST } from './observation/fleet-poller.js';
import { systemClock, type Clock } from '../../runtime/clock.js';
import { ThrottleLine } from './throttle-line.js';
import { splitObjectKey } from '../../runtime/kube/objects.js';
import { withSpecPaths } from './spec-paths.js';

/** Every reconciler call: never wait for budget, and stop when the reconcile is aborted. */
function noWait(signal: AbortSignal) {
  return { waitForBudget: false, signal } as const;
}
/**
 * The budget paces requests evenly (its bucket holds a handful of tokens), so back-to-back
 * calls often find it empty for a few milliseconds. Waiting that long in place is cheaper
 * than a trip through the work queue; anything longer is returned as Throttled so that the
 * reconcile requeues and frees its worker.
 */
const SHORT_WAIT_MS = 100;
const SHORT_WAITS = 3;
/**
 * Bulk work (trace deletions on the same key) stays back this much longer than a throttled
 * reconcile was told to wait: a reconcile comes back a little late (the work queue, a busy
 * event loop), and the token it was promised should still be there.
 */
const BULK_HOLD_MARGIN_MS = 100;
const CREATE_WAITS_MESSAGE =
  'POST /v2/deployments: the rate budget has no token for this create now; it waits for its place in line';
const CREATE_TOKEN: CreateToken = Object.freeze({ kind: 'CreateToken' });
const CREATE_ROUTE = { method: 'POST', route: '/v2/deployments' } as const;

/**
 * Workers waiting in place for one budget. A saturated key (its objects always find the
 * budget empty) would otherwise hold every worker, and the objects of other connections
 * would queue behind it: past this many, a short wait too returns Throttled.
 */
class InPlaceWaits {
  private waiting = 0;
  constructor(
    private readonly limit: () => number,
    private readonly holdBulkFor: (ms: number) => void,
  ) {}

  async patiently<T>(call: () => Promise<Result<T>>, signal: AbortSignal): Promise<Result<T>> {
    let result = await call();
    for (let attempt = 0; attempt < SHORT_WAITS; attempt += 1) {
      if (result.ok || signal.aborted) return result;
      const error = result.error;
      // attempts > 0: the server itself said 429; its wait is not ours to shorten.
      if (error.kind !== 'Throttled' || error.attempts > 0 || error.retryAfterMs > SHORT_WAIT_MS)
        return result;
      if (this.waiting >= this.limit()) return result;
      this.waiting += 1;
      this.holdBulkFor(error.retryAfterMs + BULK_HOLD_MARGIN_MS);
      try {
        await new Promise((resolve) => setTimeout(resolve, Math.max(error.retryAfterMs, 1)));
      } finally {
        this.waiting -= 1;
      }
      result = await call();
    }
    return result;
  }
}

export interface ControlPlanePortOptions {
  client: ControlPlaneApi;
  /** Requests per second allowed by the default row (count / window). */
  allowedRatePerSecond: number;
  /** Share of the budget free right now, 0..1. */
  budgetHeadroom: () => number;
  /** Takes one create's token from the budget if it has one (RateBudget.reserve); default: always. */
  takeCreateToken?: () => Reservation;
  /**
   * Requests per second the budget really admits now (its refill, below the nominal rate by
   * its safety margin and after 429s), for spacing the throttle line; default the nominal rate.
   */
  sustainedRatePerSecond?: () => number;
  /** Most reconciles waiting in place for this budget at once, asked at each wait (see InPlaceWaits); default unlimited. */
  maxInPlaceWaits?: () => number;
  /**
   * Keeps the budget's bulk requests back for a while (RateBudget.holdBulkFor): a throttled
   * reconcile was told to come back then, and its token must not go to a trace deletion.
   */
  holdBulkFor?: (ms: number) => void;
  /**
   * Whether throttled reconciles take places in the line (default always). Alone on the
   * operator's workers, a lane does better without: its reconciles retry at the next token and
   * nobody else's work waits behind them (bench:converge, 1,000 objects: 1.09x the floor
   * without the line, 1.17x with it).
   */
  spreadThrottled?: () => boolean;
  /** For the throttle line's places; default the system clock. */
  clock?: Pick<Clock, 'now'>;
  /** The line throttled reconciles take places in; default one of the port's own (its lane reads it too). */
  line?: ThrottleLine;
}

export function controlPlanePort({
  client,
  allowedRatePerSecond,
  budgetHeadroom,
  maxInPlaceWaits = () => Number.POSITIVE_INFINITY,
  takeCreateToken = () => ({ ok: true }),
  holdBulkFor = () => undefined,
  sustainedRatePerSecond = () => allowedRatePerSecond,
  spreadThrottled = () => true,
  clock = systemClock,
  // Spaced at the real refill: at the nominal rate the places would run ahead of the tokens
  // (2% over a 10 s line), and the reconciles that found none would go to the back again.
  line = new ThrottleLine(sustainedRatePerSecond, clock),
}: ControlPlanePortOptions): ControlPlanePort {
  const waits = new InPlaceWaits(maxInPlaceWaits, holdBulkFor);
  const patiently = <T>(call: () => Promise<Result<T>>, signal: AbortSignal) => waits.patiently(call, signal);
  /** A reconcile's call: still throttled after its short waits, it takes its place in the line. */
  const inLine = async <T>(
    call: () => Promise<Result<T>>,
    signal: AbortSignal,
    flow?: string,
  ): Promise<Result<T>> => {
    const result = await patiently(call, signal);
    if (result.ok || result.error.kind !== 'Throttled') return result;
    const place = spreadThrottled() ? line.place(result.error.retryAfterMs, flow) : result.error.retryAfterMs;
    holdBulkFor(place + BULK_HOLD_MARGIN_MS);
    return { ok: false, error: { ...result.error, retryAfterMs: place } };
  };
  return {
    reserveCreate: async (key, signal) => {
      const taken = await inLine(
        async (): Promise<Result<CreateToken>> => {
          const reservation = takeCreateToken();
          if (reservation.ok) return { ok: true, value: CREATE_TOKEN };
          const { waitMs } = reservation;
          const error = { ...CREATE_ROUTE, kind: 'Throttled', attempts: 0, retryAfterMs: waitMs } as const;
          return { ok: false, error: { ...error, message: CREATE_WAITS_MESSAGE } };
        },
        signal,
        // Creates take places by namespace: one tenant's flood does not put another's create last.
        splitObjectKey(key).namespace ?? '',
      );
      return outcome(taken);
    },
    createDeployment: async (request, signal, token) => {
      // The token pays for one attempt: a call made again after a short wait takes its own.
      let tokenLeft = token !== undefined;
      const attempt = () => {
        const options = { ...noWait(signal), ...(tokenLeft ? { firstTokenTaken: true } : {}) };
        tokenLeft = false;
        return client.createDeployment(request, options);
      };
      return outcome(await inLine(attempt, signal));
    },
    getDeployment: async (id, signal) =>
      outcome(await inLine(() => client.getDeployment(id, noWait(signal)), signal)),
    listDeploymentsByIds: async (ids, signal) => {
      if (ids.length > MAX_IDS_PER_LIST)
        throw new RangeError(`at most ${MAX_IDS_PER_LIST} ids per list call`);
      const page = await patiently(
        () => client.listDeployments({ deploymentIds: [...ids], limit: MAX_IDS_PER_LIST }, noWait(signal)),
        signal,
      );
      return page.ok ? { ok: true, value: page.value.resources } : { ok: false, error: failure(page.error) };
    },
    findDeploymentsByName: async (name, signal) => {
      // name_contains is a substring filter: page through and keep exact matches.
      const found = [];
      for (let offset = 0; ; offset += MAX_IDS_PER_LIST) {
        const page = await inLine(
          () =>
            client.listDeployments({ nameContains: name, limit: MAX_IDS_PER_LIST, offset }, noWait(signal)),
          signal,
        );
        if (!page.ok) return { ok: false, error: failure(page.error) };
        found.push(...page.value.resources.filter((deployment) => deployment.name === name));
        if (page.value.resources.length < MAX_IDS_PER_LIST) return { ok: true, value: found };
      }
    },
    patchDeployment: async (id, patch, signal) =>
      outcome(await inLine(() => client.patchDeployment(id, patch, noWait(signal)), signal)),
    deleteDeployment: async (id, signal, options = {}) =>
      outcome(await inLine(() => client.deleteDeployment(id, { ...noWait(signal), ...options }), signal)),
    getRevision: async (id, revisionId, signal) =>
      outcome(await patiently(() => client.getRevision(id, revisionId, noWait(signal)), signal)),
    allowedRatePerSecond: () => allowedRatePerSecond,
    budgetHeadroom,
  };
}

function outcome<T>(result: Result<T>): Outcome<T> {
  return result.ok ? result : { ok: false, error: failure(result.error) };
}

/** Maps the client's error kinds to the reconciler's failure classes (errorPolicy's input). */
export function failure(error: ControlPlaneError): Failure {
  switch (error.kind) {
    case 'Throttled':
      return { kind: 'Throttled', message: error.message, retryAfterMs: error.retryAfterMs };
    case 'Transient':
      return { kind: 'Transient', message: error.message, unclear: error.unclear, status: error.status };
    case 'Terminal':
      // 401/403 say the key is refused: a property of the credential, not of the object.
      if (error.status === 401 || error.status === 403)
        return { kind: 'Unauthorized', message: error.message, status: error.status };
      // The user wrote spec fields, not the wire's: the message names the field as written.
      return { kind: 'Terminal', message: withSpecPaths(error.message), status: error.status };
    case 'NotFound':
      return { kind: 'NotFound', message: error.message, status: 404 };
    case 'Conflict':
      return { kind: 'Conflict', message: error.message, status: 409 };
  }
}
