// Whether a Host name stays on this machine: the emulators' admin APIs answer only such names
// (a web page on another origin cannot reach them through a rebinding DNS name).
import { isIP } from 'node:net';

/** `host` without port or brackets, lower case. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}
