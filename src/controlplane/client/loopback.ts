// Whether a host name or address stays on this machine. Plain http is acceptable only
// there (the API key travels in every request), and the emulator's admin API serves only
// such Host names.
import { isIP } from 'node:net';

/** `host` without port or brackets, lower case. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}
