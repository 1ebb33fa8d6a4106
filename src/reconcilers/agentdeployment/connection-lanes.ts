// One lane per control plane the operator talks to (see ControlPlaneLane): the port paced by
// that connection's own budget, its own observation cache and its own batched poller. Lanes
// are made when an object first resolves to a connection and live as long as the operator;
// their pollers run only while this replica leads, like the default lane's. A connection
// deleted and created again reaches the same control plane through a new client (the pool
// closed the old one): its lane is then rebuilt on the new client, keeping what it observed.
import type { Logger } from 'pino';
import {
  budgetHeadroom,
  EARLY_LOOK_QUIET_MS,
  OPTIONAL_WORK_QUIET_MS,
} from '../../controlplane/budget/headroom.js';
import { DEFAULT_API_KEY_ROW_ID } from '../../controlplane/budget/rate-table.js';
import type { ControlPlaneClient } from '../../controlplane/client/index.js';
import { FleetPoller } from './observation/fleet-poller.js';
import { ObservationCache } from './observation/observation-cache.js';
import type { ControlPlaneLane, Failure, NameLookup } from './ports.js';
import { CatalogNames, type NameResolution } from '../../connections/catalog-names.js';
import { controlPlanePort, failure } from './control-plane-port.js';
import { ThrottleLine } from './throttle-line.js';

export interface ConnectionLanesOptions {
  enqueue: (key: string) => void;
  /** The controller's workers: one lane may hold at most half of them waiting for its budget. */
  concurrency: number;
  inflightPollMs?: number;
  resyncPeriodMs?: number;
  pushPollMs?: number;
  /** The pollers' clock (default Date.now); tests drive a lane's rounds with it. */
  now?: () => number;
  /** A lane's poller started or stopped failing; `label` names its connection, never its key. */
  onHealthChange: (label: string, failure: Failure | undefined) => void;
  logger: Logger;
}

export class ConnectionLanes {
  private readonly lanes = new Map<string, ControlPlaneLane & { client: ControlPlaneClient }>();
  /** Listener and integration names, one catalog per lane. */
  private readonly catalogs = new CatalogNames();
  private running = false;

  constructor(private readonly options: ConnectionLanesOptions) {}

  /** The lane of `client`; `id` is the identity of its control plane (see ResolvedConnection.controlPlaneId). */
  laneFor(id: string, client: ControlPlaneClient, label: string): ControlPlaneLane {
    const existing = this.lanes.get(id);
    if (existing?.client === client) return existing;
    // Its client was closed with the connection that held it: the poller goes with it.
    if (existing !== undefined) void existing.poller.stop();
    const observations = existing?.observations ?? new ObservationCache();
    const line = new ThrottleLine(sustainedRateProbe(client));
    const controlPlane = controlPlanePort({
      client,
      allowedRatePerSecond: allowedRatePerSecond(client),
      budgetHeadroom: budgetHeadroomProbe(client),
      takeCreateToken: () => client.budget.reserve(deploymentsRequest(client, 'POST')),
      sustainedRatePerSecond: sustainedRateProbe(client),
      // Trace deletions on this key (bulk) must not take the tokens throttled reconciles wait for.
      holdBulkFor: (ms) => client.budget.holdBulkFor(ms),
      // Alone, a lane may use every worker (waiting in place is cheaper than the queue) and
      // retry at the next token; beside others, a saturated one must leave them workers and
      // CPU: it waits in place on at most half the workers, and its throttled reconciles
      // come back at their places in its line.
      maxInPlaceWaits: () =>
        this.shared() ? Math.max(1, Math.floor(this.options.concurrency / 2)) : Number.POSITIVE_INFINITY,
      spreadThrottled: () => this.shared(),
      line,
    });
    const poller = new FleetPoller({
      controlPlane,
      // Fewer list calls on a saturated key matter when other lanes wait for the CPU and workers.
      coalesce: () => this.shared(),
      earlyLookHeadroom: earlyLookHeadroomProbe(client, line),
      ...(this.options.now === undefined ? {} : { now: this.options.now }),
      cache: observations,
      enqueue: this.options.enqueue,
      ...(this.options.inflightPollMs === undefined ? {} : { inflightPollMs: this.options.inflightPollMs }),
      ...(this.options.resyncPeriodMs === undefined ? {} : { resyncPeriodMs: this.options.resyncPeriodMs }),
      ...(this.options.pushPollMs === undefined ? {} : { pushPollMs: this.options.pushPollMs }),
      onHealthChange: (failure) => this.options.onHealthChange(label, failure),
      onError: (message) => this.options.logger.debug({ connection: label }, message),
    });
    const names = {
      listenerId: async (name: string, signal: AbortSignal) =>
        lookup(await this.catalogs.listenerId(client, id, name, signal)),
      integrationId: async (name: string, signal: AbortSignal) =>
        lookup(await this.catalogs.integrationId(client, id, name, signal)),
    };
    const lane = { id, client, controlPlane, observations, poller, names };
    this.lanes.set(id, lane);
    if (this.running) poller.start();
    return lane;
  }

  /** Whether the workers are shared by several lanes (the default connection's counts). */
  private shared(): boolean {
    return this.lanes.size > 1;
  }

  /** Starts every poller, and those of lanes made later (on becoming the leader). */
  start(): void {
    this.running = true;
    for (const lane of this.lanes.values()) lane.poller.start();
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all([...this.lanes.values()].map((lane) => lane.poller.stop()));
  }
}

function lookup(resolution: NameResolution): NameLookup {
  if (resolution.ok) return resolution;
  return resolution.kind === 'UnknownName'
    ? { ok: false, unknown: resolution.message }
    : { ok: false, error: failure(resolution.error) };
}

/**
 * A call on /v2/deployments as the budget sees it. GET is the request every deployment call
 * counts as (they all fall in the key's default row); POST is a create, whose token is taken
 * before its intent is written.
 */
function deploymentsRequest(client: ControlPlaneClient, method: 'GET' | 'POST' = 'GET') {
  return {
    method,
    path: `${client.endpoint.pathPrefix}/v2/deployments`,
    credentialFingerprint: client.credentialFingerprint,
  };
}

function allowedRatePerSecond(client: ControlPlaneClient): number {
  const reports = client.budget.report(deploymentsRequest(client));
  const row = reports.find((report) => report.rowId === DEFAULT_API_KEY_ROW_ID) ?? reports[0];
  return row === undefined ? 100 : row.limit.count / row.limit.windowSeconds;
}

/** Requests per second the deployment routes' slowest bucket admits now. */
function sustainedRateProbe(client: ControlPlaneClient): () => number {
  const nominal = allowedRatePerSecond(client);
  return () => {
    const reports = client.budget.report(deploymentsRequest(client));
    return reports.length === 0 ? nominal : Math.min(...reports.map((report) => report.refillPerSecond));
  };
}

/**
 * Share of the budget spare right now, 0..1 (the emptiest bucket the deployment routes draw
 * from), for the lane's optional calls: none while a create or a poll has waited on the key
 * recently. By its fill alone a key whose creates wait for tokens looked spare between two
 * creates, and the poller's lists took the creates' tokens (see docs/connections.md).
 */
export function budgetHeadroomProbe(client: ControlPlaneClient): () => number {
  return () => budgetHeadroom(client.budget, deploymentsRequest(client), OPTIONAL_WORK_QUIET_MS);
}

/**
 * Share of the budget spare for the lane's poller to look at new revisions early (FleetPoller's
 * earlyLookHeadroom): only calls no create is waiting for: none while anybody holds a place in
 * the key's throttle line, nor within EARLY_LOOK_QUIET_MS of a create or poll that found the key
 * empty; else the buckets' fill.
 */
export function earlyLookHeadroomProbe(client: ControlPlaneClient, line: ThrottleLine): () => number {
  return () =>
    line.lengthMs > 0 ? 0 : budgetHeadroom(client.budget, deploymentsRequest(client), EARLY_LOOK_QUIET_MS);
}
