// Helpers for driving the in-process control-plane emulator's admin API from tests and benches.
import { request } from 'undici';

export interface EmulatorStats {
  total: number;
  throttled: number;
  byRoute: { method: string; route: string; status: number; key_fingerprint: string | null; count: number }[];
}

async function admin(
  url: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await request(`${url}/_emulator${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300)
    throw new Error(`admin ${method} ${path}: HTTP ${response.statusCode}: ${text}`);
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

export const emulatorAdmin = {
  stats: (url: string) => admin(url, 'GET', '/stats') as Promise<EmulatorStats>,
  reset: (url: string) => admin(url, 'POST', '/reset'),
  addFault: (url: string, fault: Record<string, unknown>) => admin(url, 'POST', '/faults', fault),
  clearFaults: (url: string) => admin(url, 'DELETE', '/faults'),
  setRateLimit: (
    url: string,
    limit: { count: number; windowSeconds: number } | { off: true },
    retryAfter?: boolean,
  ) => admin(url, 'PUT', '/rate-limit', { ...limit, ...(retryAfter === undefined ? {} : { retryAfter }) }),
};
