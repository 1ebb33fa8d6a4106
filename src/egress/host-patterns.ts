// Allow-lists of hosts that a credential's owner names (a connection's spec.agentHosts, the
// operator's --agent-hosts): the only tenant-chosen addresses a shared key may be sent to.
// A pattern is `host`, `*.domain` (any host below domain, not domain itself), either with
// an optional `:port`. Without a port a pattern admits only the scheme's default port (443
// for https, 80 for http): a key allowed for a web host is not thereby allowed for whatever
// else listens on that machine.
//
// Matching reads the URL as the WHATWG parser (undici's, hence the request's) reads it, so
// that what is checked is what is connected to: user info (`https://allowed@evil/`) is
// refused outright, host names are compared in their ASCII (punycode) form, lower case,
// without a trailing dot, and IP literals in their canonical form (`0x7f.1` is 127.0.0.1).
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

export interface HostPattern {
  /** `*.domain` matches below `domain`; otherwise the host itself. */
  wildcard: boolean;
  /** ASCII, lower case, no trailing dot; for a wildcard, the domain after `*.`. */
  host: string;
  /** Absent: the URL scheme's default port only. */
  port?: number;
}

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** What the CRD admits (the operator re-checks every entry with parseHostPattern). */
export const HOST_PATTERN_REGEX =
  '^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(:[0-9]{1,5})?$';

/** The pattern, or a sentence saying which rule it breaks. */
export function parseHostPattern(text: string): HostPattern | string {
  const match = /^(\*\.)?([^:]+)(?::(\d{1,5}))?$/.exec(text.trim());
  if (!match) return `"${text}" is not host, *.domain or either with :port`;
  const wildcard = match[1] !== undefined;
  const rawHost = match[2] ?? '';
  const host = domainToASCII(rawHost.toLowerCase()).replace(/\.$/, '');
  if (host === '' || (isIP(host) === 0 && !host.split('.').every((label) => LABEL.test(label)))) {
    return `"${text}": "${rawHost}" is not a DNS name or an IPv4 address`;
  }
  if (wildcard && isIP(host) !== 0) return `"${text}": a wildcard needs a domain, not an IP address`;
  if (wildcard && !host.includes('.')) {
    return `"${text}": a wildcard must name a domain with at least two labels (*.example.com)`;
  }
  const port = match[3] === undefined ? undefined : Number(match[3]);
  if (port !== undefined && (port < 1 || port > 65535)) return `"${text}": port must be 1 to 65535`;
  return { wildcard, host, ...(port === undefined ? {} : { port }) };
}

/** Parses every pattern, or throws naming the first bad one (for flags and Helm values). */
export function parseHostPatterns(texts: readonly string[], field: string): HostPattern[] {
  return texts.map((text) => {
    const parsed = parseHostPattern(text);
    if (typeof parsed === 'string') throw new Error(`${field}: ${parsed}`);
    return parsed;
  });
}

/** The host part of a URL as compared here: ASCII, lower case, no brackets, no trailing dot. */
export function comparableHost(url: URL): string {
  return url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

/** The default port of a URL's scheme. */
function defaultPort(url: URL): number {
  return url.protocol === 'http:' ? 80 : 443;
}

/** The port a URL connects to. */
export function effectivePort(url: URL): number {
  return url.port === '' ? defaultPort(url) : Number(url.port);
}

export function hostPatternMatches(pattern: HostPattern, url: URL): boolean {
  const host = comparableHost(url);
  if (effectivePort(url) !== (pattern.port ?? defaultPort(url))) return false;
  return pattern.wildcard ? host.endsWith(`.${pattern.host}`) : host === pattern.host;
}

/** Whether `url` (already parsed, no user info) is admitted by any of `patterns`. */
export function anyHostPatternMatches(patterns: readonly HostPattern[], url: URL): boolean {
  return patterns.some((pattern) => hostPatternMatches(pattern, url));
}

/** `host[:port]` as a user reads it in a message. */
export function displayHost(url: URL): string {
  return url.port === '' ? comparableHost(url) : `${comparableHost(url)}:${url.port}`;
}

/** Whether two URLs reach the same origin (scheme, host, port). */
export function sameOrigin(a: URL, b: URL): boolean {
  return (
    a.protocol === b.protocol &&
    comparableHost(a) === comparableHost(b) &&
    effectivePort(a) === effectivePort(b)
  );
}
