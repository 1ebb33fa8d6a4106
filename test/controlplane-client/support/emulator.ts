// Helpers for driving the in-process control-plane emulator's admin API from tests and benches.
import { request } from 'undici';

export interface EmulatorStats {
  total: number;
  throttled: number;
  byRoute: { method: string; route: string; status: number; key_fingerprint: string | null; count: number }[];
}

/** Where the emulator listens and the token its admin API requires. */
export interface AdminTarget {
  url: string;
  adminToken: string;
}

async function admin(
  { url, adminToken }: AdminTarget,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await request(`${url}/_emulator${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300)
    throw new Error(`admin ${method} ${path}: HTTP ${response.statusCode}: ${text}`);
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

export const emulatorAdmin = {
  stats: (target: AdminTarget) => admin(target, 'GET', '/stats') as Promise<EmulatorStats>,
  reset: (target: AdminTarget) => admin(target, 'POST', '/reset'),
  addFault: (target: AdminTarget, fault: Record<string, unknown>) => admin(target, 'POST', '/faults', fault),
  clearFaults: (target: AdminTarget) => admin(target, 'DELETE', '/faults'),
  setRateLimit: (
    target: AdminTarget,
    limit: { count: number; windowSeconds: number } | { off: true },
    retryAfter?: boolean,
  ) => admin(target, 'PUT', '/rate-limit', { ...limit, ...(retryAfter === undefined ? {} : { retryAfter }) }),
};
