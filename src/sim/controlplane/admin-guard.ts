// Who may call the admin API under /_emulator/. It can reset, fault and read every
// tenant's deployments, and the emulator runs on developer machines and in CI next to a
// browser, so three checks apply, in this order:
//   1. Host must name this server (a loopback name or address, or the configured listen
//      host): a page that rebinds its own DNS name to 127.0.0.1 still sends its own name.
//   2. A browser's cross-origin request (Origin naming another host, or Sec-Fetch-Site
//      cross-site/same-site) is refused even before the token is looked at.
//   3. `Authorization: Bearer <admin token>`, compared in constant time.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isLoopbackHost } from '../http/loopback.js';
import { detailError } from '../http/http-error.js';

/** The environment variable `emulate control-plane` reads the admin token from. */
export const ADMIN_TOKEN_ENV = 'AGENT_OPERATOR_ADMIN_TOKEN';

export function generateAdminToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The host part of a Host header or URL authority, lower case, without port or brackets. */
function hostname(authority: string): string {
  const trimmed = authority.trim().toLowerCase();
  if (trimmed.startsWith('[')) {
    const end = trimmed.indexOf(']');
    return end < 0 ? trimmed : trimmed.slice(1, end);
  }
  const colon = trimmed.indexOf(':');
  // More than one colon and no brackets: a bare IPv6 address, which has no port.
  if (colon >= 0 && trimmed.indexOf(':', colon + 1) < 0) return trimmed.slice(0, colon);
  return trimmed;
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '']);

export class AdminGuard {
  private readonly token: Buffer;
  private readonly listenHost: string;

  constructor(token: string, listenHost: string) {
    this.token = Buffer.from(token, 'utf8');
    this.listenHost = hostname(listenHost);
  }

  private allowedHost(host: string): boolean {
    return isLoopbackHost(host) || (!WILDCARD_HOSTS.has(this.listenHost) && host === this.listenHost);
  }

  /** Throws the 403 or 401 answer for a request the admin API must not serve. */
  check(headers: IncomingHttpHeaders): void {
    const host = hostname(headers.host ?? '');
    if (!this.allowedHost(host)) {
      throw detailError(
        403,
        'Admin API: the Host header must be a loopback name or address or the emulator listen host',
      );
    }
    const fetchSite = headers['sec-fetch-site'];
    if (fetchSite === 'cross-site' || fetchSite === 'same-site') {
      throw detailError(403, 'Admin API: cross-origin browser requests are refused');
    }
    const origin = headers.origin;
    if (origin !== undefined && !this.sameOrigin(origin, host)) {
      throw detailError(403, 'Admin API: cross-origin browser requests are refused');
    }
    if (!this.validToken(headers.authorization)) {
      throw detailError(401, 'Admin API: send Authorization: Bearer <admin token>', {
        'www-authenticate': 'Bearer realm="agent-operator-emulator-admin"',
      });
    }
  }

  private sameOrigin(origin: string, host: string): boolean {
    try {
      return hostname(new URL(origin).host) === host;
    } catch {
      return false;
    }
  }

  private validToken(authorization: string | undefined): boolean {
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (presented === undefined) return false;
    const candidate = Buffer.from(presented, 'utf8');
    return candidate.length === this.token.length && timingSafeEqual(candidate, this.token);
  }
}
