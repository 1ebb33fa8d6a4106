// The probe of one connection: one cheap authenticated read (GET /v2/listeners?limit=1) says
// whether the credential authenticates; GET /ok on the platform API, and through the private
// domain when one is set, says whether the platform is reachable. /ok needs no credential, so
// none is sent there.
import { fetch as undiciFetch } from 'undici';
import type { ControlPlaneApi } from '../../controlplane/client/index.js';
import type { AddressPolicy } from '../../egress/address-policy.js';
import { AddressNotAllowedError, guardedAgent, urlAddressProblem } from '../../egress/guarded-lookup.js';
import type { ConnectionEndpoints } from '../../connections/endpoints.js';
import { RequestDeadline } from '../../runtime/request-deadline.js';

export type AuthOutcome =
  | { kind: 'ok' }
  /** 401/403 (or another refusal: a wrong path prefix answers 404). */
  | { kind: 'refused'; status: number; message: string }
  | { kind: 'unavailable'; message: string }
  | { kind: 'throttled'; retryAfterMs: number; message: string };

export type ReachOutcome = { ok: true } | { ok: false; message: string };

export interface ProbeOutcome {
  auth: AuthOutcome;
  platform: ReachOutcome;
  privateDomain?: ReachOutcome;
}

export type HttpGet = (url: string, signal: AbortSignal) => Promise<{ status: number }>;

export const fetchGet: HttpGet = async (url, signal) => {
  const response = await fetch(url, { method: 'GET', signal, redirect: 'manual' });
  await response.body?.cancel();
  return { status: response.status };
};

/**
 * A GET held to `policy`: an address the policy refuses (an IP literal, or what a name
 * resolves to) fails as unreachable, saying so, and nothing is sent.
 */
export function guardedGet(policy: AddressPolicy): HttpGet {
  const dispatcher = guardedAgent(policy);
  return async (url, signal) => {
    const refused = urlAddressProblem(new URL(url), policy);
    if (refused !== undefined) throw new AddressNotAllowedError(refused);
    const response = await undiciFetch(url, { method: 'GET', signal, redirect: 'manual', dispatcher });
    await response.body?.cancel();
    return { status: response.status };
  };
}

export interface ProbeOptions {
  client: Pick<ControlPlaneApi, 'listListeners'>;
  endpoints: ConnectionEndpoints;
  signal: AbortSignal;
  get?: HttpGet;
  /** Deadline of each /ok check; default 10 s. */
  timeoutMs?: number;
}

export async function probeConnection(options: ProbeOptions): Promise<ProbeOutcome> {
  const get = options.get ?? fetchGet;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const reach = (url: string) => checkOk(get, url, options.signal, timeoutMs);
  const [auth, platform, privateDomain] = await Promise.all([
    authenticate(options.client, options.signal),
    reach(`${options.endpoints.platformApiUrl}/ok`),
    options.endpoints.privateOkUrl === undefined ? undefined : reach(options.endpoints.privateOkUrl),
  ]);
  return { auth, platform, ...(privateDomain === undefined ? {} : { privateDomain }) };
}

async function authenticate(client: ProbeOptions['client'], signal: AbortSignal): Promise<AuthOutcome> {
  const result = await client.listListeners({ limit: 1 }, { signal });
  if (result.ok) return { kind: 'ok' };
  const error = result.error;
  switch (error.kind) {
    case 'Throttled':
      return { kind: 'throttled', retryAfterMs: error.retryAfterMs, message: error.message };
    case 'Terminal':
    case 'NotFound':
      return { kind: 'refused', status: error.status, message: error.message };
    case 'Transient':
    case 'Conflict':
      return { kind: 'unavailable', message: error.message };
  }
}

async function checkOk(
  get: HttpGet,
  url: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<ReachOutcome> {
  const deadline = new RequestDeadline(signal, timeoutMs);
  try {
    const { status } = await get(url, deadline.signal);
    return status >= 200 && status < 300
      ? { ok: true }
      : { ok: false, message: `GET ${url} answered HTTP ${status}` };
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    // A refused address says which rule refused it; other errors are named by their code.
    const reason =
      cause instanceof AddressNotAllowedError
        ? cause.message
        : cause instanceof Error
          ? ((cause as NodeJS.ErrnoException).code ?? cause.message)
          : String(cause);
    return { ok: false, message: `GET ${url} failed: ${reason}` };
  } finally {
    deadline.release();
  }
}
