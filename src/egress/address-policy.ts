// Which network addresses the operator may connect to on a tenant's behalf. A URL a tenant
// writes (a PlatformConnection's endpoints, an agent's customUrl) is fetched from the
// operator's pod, inside the cluster network; without a rule, the outcome of that fetch
// (reachable, refused, a status code) tells the tenant what answers at internal addresses.
//
// - Never: link-local addresses (169.254.0.0/16 and fe80::/10, where cloud metadata
//   services answer with the node's credentials), the cloud metadata addresses outside that
//   range, unspecified (0.0.0.0, ::, which reach this host), multicast and broadcast.
// - Only with --allow-private-networks: loopback, RFC 1918 private ranges, shared address
//   space (100.64.0.0/10), IPv6 unique-local (fc00::/7). The emulators listen on loopback,
//   so the demo and the tests pass that flag.
// IPv4-mapped and IPv4-compatible IPv6 forms are judged by the IPv4 address inside.
import { isIP } from 'node:net';

export type AddressClass =
  'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'unspecified' | 'multicast' | 'reserved';

export interface AddressPolicy {
  /** Loopback and private ranges are allowed (the emulators, a lab install). */
  allowPrivateNetworks: boolean;
}

/** Hosts that answer as a cloud metadata service but are not link-local. */
const METADATA_V4 = new Set(['100.100.100.200', '192.0.0.192']);
const METADATA_V6 = ['fd00:ec2::254'];

/** The class of an IP literal; undefined when `address` is not one. */
export function classifyAddress(address: string): AddressClass | undefined {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0] ?? '';
  const family = isIP(bare);
  if (family === 4) return classifyV4(bare);
  if (family === 6) return classifyV6(bare);
  return undefined;
}

/** Why `address` may not be connected to under `policy`, or undefined when it may. */
export function addressProblem(address: string, policy: AddressPolicy): string | undefined {
  const kind = classifyAddress(address);
  if (kind === undefined || kind === 'public') return undefined;
  if ((kind === 'loopback' || kind === 'private') && policy.allowPrivateNetworks) return undefined;
  const rule =
    kind === 'loopback' || kind === 'private'
      ? `a ${kind} address, refused unless the operator runs with --allow-private-networks`
      : `a ${kind} address, never allowed`;
  return `${address} is ${rule}`;
}

function classifyV4(address: string): AddressClass {
  const [a = 0, b = 0, c = 0, d = 0] = address.split('.').map(Number);
  if (METADATA_V4.has(address)) return 'metadata';
  if (a === 0) return 'unspecified';
  if (a === 127) return 'loopback';
  if (a === 169 && b === 254) return 'link-local';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
  if (a === 100 && b >= 64 && b <= 127) return 'private';
  if (a >= 224 && a <= 239) return 'multicast';
  if (a === 255 && b === 255 && c === 255 && d === 255) return 'reserved';
  if (a >= 240) return 'reserved';
  return 'public';
}

function classifyV6(address: string): AddressClass {
  const words = expandV6(address);
  if (words === undefined) return 'reserved';
  if (METADATA_V6.some((metadata) => sameWords(expandV6(metadata), words))) return 'metadata';
  const embedded = embeddedV4(words);
  if (embedded !== undefined) return classifyV4(embedded);
  if (words.every((word) => word === 0)) return 'unspecified';
  if (words.slice(0, 7).every((word) => word === 0) && words[7] === 1) return 'loopback';
  const first = words[0] ?? 0;
  if ((first & 0xffc0) === 0xfe80) return 'link-local';
  if ((first & 0xfe00) === 0xfc00) return 'private';
  if ((first & 0xff00) === 0xff00) return 'multicast';
  return 'public';
}

/** The IPv4 address inside ::ffff:a.b.c.d (mapped) or ::a.b.c.d (compatible, deprecated). */
function embeddedV4(words: readonly number[]): string | undefined {
  const zeroPrefix = words.slice(0, 5).every((word) => word === 0);
  const mapped = zeroPrefix && words[5] === 0xffff;
  const compatible = zeroPrefix && words[5] === 0 && ((words[6] ?? 0) !== 0 || (words[7] ?? 0) > 1);
  if (!mapped && !compatible) return undefined;
  const high = words[6] ?? 0;
  const low = words[7] ?? 0;
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/** Eight 16-bit words of an IPv6 literal (with an optional dotted IPv4 tail). */
function expandV6(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail?.[1] !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = tail[1].split('.').map(Number);
    text = `${text.slice(0, -tail[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const parse = (part: string): number[] =>
    part === '' ? [] : part.split(':').map((word) => parseInt(word, 16));
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  const missing = 8 - left.length - right.length;
  if (missing < 0 || (rest === undefined && missing !== 0)) return undefined;
  return [...left, ...new Array<number>(missing).fill(0), ...right];
}

function sameWords(a: readonly number[] | undefined, b: readonly number[]): boolean {
  return a !== undefined && a.length === b.length && a.every((word, index) => word === b[index]);
}
