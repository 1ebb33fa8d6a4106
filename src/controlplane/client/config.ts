// Client configuration: where the control plane is, who we are, and how patient to be.
import type { AddressPolicy } from '../../egress/address-policy.js';
import type { Logger } from 'pino';
import type { AdaptationPolicy } from '../budget/adaptive-bucket.js';
import type { Clock, RandomSource } from '../budget/clock.js';
import type { SafetyMargin } from '../budget/fixed-window-shape.js';
import type { RateBudget, RateLimitOverrides } from '../budget/rate-budget.js';
import type { Region } from '../budget/rate-table.js';
import type { ClientMetrics } from './metrics.js';
import type { RetryPolicy } from './retry-policy.js';

/** The production control-plane hosts, one per region (the region also picks the rate table's column). */
export const REGION_BASE_URLS: Readonly<Record<Region, string>> = {
  us: 'https://api.host.langchain.com',
  eu: 'https://eu.api.host.langchain.com',
};

export type Credentials = { apiKey: string; tenantId?: string } | { bearerToken: string; tenantId?: string };

export interface ControlPlaneClientOptions {
  /** Base URL; may carry a path prefix (self-hosted installs serve the API under one). Wins over the region's host. */
  baseUrl?: string;
  /** Region preset: picks the host when baseUrl is absent, and the rate table's column. Default 'us'. */
  region?: Region;
  credentials: Credentials;
  /** Per-attempt deadline in ms, covering connect, send and the whole response. Default 30 000. */
  deadlineMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Longest a call waits for rate budget (when waiting at all) before returning Throttled. Default 60 000. */
  maxBudgetWaitMs?: number;
  /** Replaces published limits (e.g. `{ default: { count: 100, windowSeconds: 10 } }`). Ignored when `budget` is given. */
  rateLimits?: RateLimitOverrides;
  safetyMargin?: SafetyMargin;
  adaptation?: Partial<AdaptationPolicy>;
  /** A budget shared with other clients of the same credentials; by default the client builds its own. */
  budget?: RateBudget;
  /** Most sockets to the host; default: unlimited, so the budget (not a socket queue) paces requests. */
  connections?: number;
  /**
   * The address policy for a base URL a tenant chose (a PlatformConnection): every resolved
   * address is checked before connecting. Absent: the operator's own URLs, not checked.
   */
  addressPolicy?: AddressPolicy;
  /**
   * Who this replica is, appended to the User-Agent (`agent-operator (<identity>)`), so that
   * the server side can tell two replicas' calls apart. Printable ASCII without spaces or
   * parentheses, at most 128 characters. Default: none (`agent-operator`).
   */
  userAgentIdentity?: string;
  /**
   * Asked right before each request is sent; false: it is not sent (a Transient error,
   * nothing reached the server). A replica with leader election passes "do I hold the lease
   * by my own clock now": after a freeze (a GC pause, SIGSTOP) the first code to run may send
   * a write, or a read that spends the budget the new leader now uses, before any timer
   * could tell it the lease is gone. Default: always.
   */
  mayCall?: () => boolean;
  logger?: Logger;
  metrics?: ClientMetrics;
  clock?: Clock;
  random?: RandomSource;
}

export interface Endpoint {
  /** scheme://host[:port] */
  origin: string;
  /** '' or a prefix such as '/control-plane' (no trailing slash). */
  pathPrefix: string;
  region: Region;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function resolveEndpoint(options: Pick<ControlPlaneClientOptions, 'baseUrl' | 'region'>): Endpoint {
  const region = options.region ?? 'us';
  if (!(region in REGION_BASE_URLS))
    throw new Error(`region must be one of us, eu (got "${String(region)}")`);
  const raw = options.baseUrl ?? REGION_BASE_URLS[region];
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`baseUrl must be an absolute http(s) URL (got "${raw}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`baseUrl must use http or https (got "${url.protocol}")`);
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new Error('baseUrl must not carry a query, a fragment or user info');
  }
  return { origin: url.origin, pathPrefix: url.pathname.replace(/\/+$/, ''), region };
}

const USER_AGENT_IDENTITY = /^[\x21-\x27\x2a-\x7e]{1,128}$/;

/** The User-Agent header: the product, and this replica's identity when it has one. */
export function userAgent(identity: string | undefined): string {
  if (identity === undefined) return 'agent-operator';
  if (!USER_AGENT_IDENTITY.test(identity)) {
    throw new Error(
      `userAgentIdentity must be 1-128 printable ASCII characters without spaces or parentheses (got ${JSON.stringify(identity.slice(0, 140))})`,
    );
  }
  return `agent-operator (${identity})`;
}

export function validateCredentials(credentials: Credentials): void {
  const secret = 'apiKey' in credentials ? credentials.apiKey : credentials.bearerToken;
  const field = 'apiKey' in credentials ? 'credentials.apiKey' : 'credentials.bearerToken';
  if (typeof secret !== 'string' || secret.trim() === '')
    throw new Error(`${field} must be a non-empty string`);
  if (/[\r\n]/.test(secret)) throw new Error(`${field} must not contain line breaks`);
  if (credentials.tenantId !== undefined && !UUID.test(credentials.tenantId)) {
    throw new Error('credentials.tenantId must be a uuid');
  }
}

/** The headers that carry the credentials (never logged). */
export function authHeaders(credentials: Credentials): Record<string, string> {
  const headers: Record<string, string> =
    'apiKey' in credentials
      ? { 'x-api-key': credentials.apiKey }
      : { authorization: `Bearer ${credentials.bearerToken}` };
  if (credentials.tenantId !== undefined) headers['x-tenant-id'] = credentials.tenantId;
  return headers;
}

export function credentialSecret(credentials: Credentials): string {
  return 'apiKey' in credentials ? credentials.apiKey : credentials.bearerToken;
}
