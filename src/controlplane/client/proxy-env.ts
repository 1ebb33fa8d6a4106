// Which proxy, if any, a request to the control plane goes through, read from the standard
// environment variables the way curl reads them, because that is what platform teams test
// their egress with:
// - https targets use https_proxy / HTTPS_PROXY, http targets http_proxy / HTTP_PROXY (curl
//   reads only the lowercase http_proxy; the uppercase one is honoured here too, since an
//   operator is not a CGI program), both falling back to all_proxy / ALL_PROXY; the lowercase
//   name wins when both are set, even when it is empty;
// - only no_proxy / NO_PROXY exempts a host: nothing is exempt implicitly, not even loopback.
//   Entries are separated by commas or spaces; "*" alone exempts everything; a name matches
//   itself and its subdomains (a leading "." or "*." is ignored); an IP address matches
//   itself, and a CIDR range (10.0.0.0/8, fd00::/8) every address in it. Ports in entries are
//   not part of curl's syntax and never match.
import { BlockList, isIP } from 'node:net';

export type ProxyEnvironment = Readonly<Record<string, string | undefined>>;

function variable(env: ProxyEnvironment, lower: string, upper: string): string | undefined {
  const value = (env[lower] !== undefined ? env[lower] : env[upper])?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** The proxy URL for a request to `target`, or undefined to connect directly. */
export function proxyFor(target: URL, env: ProxyEnvironment): string | undefined {
  const noProxy = variable(env, 'no_proxy', 'NO_PROXY');
  if (noProxy !== undefined && isExempt(target.hostname, noProxy)) return undefined;
  const proxy =
    target.protocol === 'https:'
      ? variable(env, 'https_proxy', 'HTTPS_PROXY')
      : variable(env, 'http_proxy', 'HTTP_PROXY');
  return proxy ?? variable(env, 'all_proxy', 'ALL_PROXY');
}

export function isExempt(hostname: string, noProxy: string): boolean {
  if (noProxy.trim() === '*') return true;
  const host = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
  const family = isIP(host);
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.toLowerCase().replace(/^\*?\./, '');
    if (entry === '') continue;
    if (family !== 0) {
      if (ipMatches(host, family, entry)) return true;
    } else if (host === entry || host.endsWith(`.${entry}`)) {
      return true;
    }
  }
  return false;
}

function ipMatches(address: string, family: number, entry: string): boolean {
  const [network = '', bits] = entry.replace(/^\[(.*)\]$/, '$1').split('/');
  const networkFamily = isIP(network);
  if (networkFamily !== family) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const list = new BlockList();
  if (bits === undefined) list.addAddress(network, type);
  else {
    const prefix = Number(bits);
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) return false;
    list.addSubnet(network, prefix, type);
  }
  return list.check(address, type);
}
