// The CEL environment CRD validation rules run in: @marcbachmann/cel-js plus the parts of
// the Kubernetes CEL libraries (k8s.io/apiserver/pkg/cel/library and cel-go's ext.Strings)
// that CRDs commonly use. The library's own built-ins already cover has(), size(),
// matches(), startsWith/endsWith/contains, all/exists/exists_one/map/filter, optional
// field access (`self.?x`, `.orValue()`), lowerAscii/upperAscii, indexOf/lastIndexOf,
// split, substring, trim, join, timestamp() and duration().
import { isIP } from 'node:net';
import { Environment } from '@marcbachmann/cel-js';

type CelList = readonly unknown[];

function compareCel(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  throw new Error('no such overload');
}

function celEquals(a: unknown, b: unknown): boolean {
  if (typeof a === 'bigint' || typeof b === 'bigint' || typeof a === 'number' || typeof b === 'number') {
    return (typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number') && a == b;
  }
  return JSON.stringify(a, bigintReplacer) === JSON.stringify(b, bigintReplacer);
}
function bigintReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${value}n` : value;
}

function listIsSorted(list: CelList): boolean {
  for (let i = 1; i < list.length; i++) if (compareCel(list[i - 1], list[i]) > 0) return false;
  return true;
}

function listSum(list: CelList): unknown {
  if (list.length === 0) return 0n;
  let total: unknown = list[0];
  for (const item of list.slice(1)) {
    if (typeof total === 'bigint' && typeof item === 'bigint') total = total + item;
    else if (typeof total === 'number' && typeof item === 'number') total = total + item;
    else throw new Error('no such overload');
  }
  return total;
}

function listExtreme(list: CelList, wantMax: boolean): unknown {
  if (list.length === 0) throw new Error(`${wantMax ? 'max' : 'min'}(list) argument must not be empty`);
  let best: unknown = list[0];
  for (const item of list) if (wantMax ? compareCel(item, best) > 0 : compareCel(item, best) < 0) best = item;
  return best;
}

function listIndexOf(list: CelList, value: unknown, fromEnd: boolean): bigint {
  if (fromEnd) {
    for (let i = list.length - 1; i >= 0; i--) if (celEquals(list[i], value)) return BigInt(i);
  } else {
    for (let i = 0; i < list.length; i++) if (celEquals(list[i], value)) return BigInt(i);
  }
  return -1n;
}

/** Kubernetes' isURL accepts absolute URIs and absolute paths, like Go's url.ParseRequestURI. */
function parseRequestUri(text: string): URL | undefined {
  if (text === '' || /\s/.test(text)) return undefined;
  if (!text.startsWith('/') && !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(text)) return undefined;
  try {
    // `//host...` resolves as an authority, which can fail to parse like any other URL.
    return text.startsWith('/') ? new URL(text, 'http://placeholder.invalid') : new URL(text);
  } catch {
    return undefined;
  }
}

function requireUrl(text: string): URL {
  const parsed = parseRequestUri(text);
  if (parsed === undefined) throw new Error(`URL parse error during conversion from string: ${text}`);
  return parsed;
}

/** A parsed URL as the Kubernetes `url()` function returns it. */
export class KubeUrl {
  constructor(
    readonly source: string,
    readonly parsed: URL,
  ) {}
}

const quantityPattern = /^[+-]?(\d+(\.\d*)?|\.\d+)(([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/;

function isCidr(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash < 0) return false;
  const address = text.slice(0, slash);
  const bits = text.slice(slash + 1);
  const family = isIP(address);
  if (family === 0 || !/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

function buildEnvironment(): Environment {
  const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false })
    .registerVariable('self', 'dyn')
    .registerVariable('oldSelf', 'dyn')
    .registerType('kubernetes.URL', KubeUrl)
    // lists library
    .registerFunction('list.isSorted(): bool', (l: CelList) => listIsSorted(l))
    .registerFunction('list.sum(): dyn', (l: CelList) => listSum(l))
    .registerFunction('list.min(): dyn', (l: CelList) => listExtreme(l, false))
    .registerFunction('list.max(): dyn', (l: CelList) => listExtreme(l, true))
    .registerFunction('list.indexOf(dyn): int', (l: CelList, v: unknown) => listIndexOf(l, v, false))
    .registerFunction('list.lastIndexOf(dyn): int', (l: CelList, v: unknown) => listIndexOf(l, v, true))
    // regex library
    .registerFunction('string.find(string): string', (s: string, re: string) => new RegExp(re, 'u').exec(s)?.[0] ?? '')
    .registerFunction('string.findAll(string): list<string>', (s: string, re: string) => [...s.matchAll(new RegExp(re, 'gu'))].map((m) => m[0]))
    .registerFunction('string.findAll(string, int): list<string>', (s: string, re: string, n: bigint) => {
      const all = [...s.matchAll(new RegExp(re, 'gu'))].map((m) => m[0]);
      return n < 0n ? all : all.slice(0, Number(n));
    })
    // ext.Strings functions the library lacks
    .registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => s.split(a).join(b))
    .registerFunction('string.replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) => {
      if (n < 0n) return s.split(a).join(b);
      let out = s;
      let from = 0;
      for (let i = 0n; i < n; i++) {
        const at = out.indexOf(a, from);
        if (at < 0) break;
        out = out.slice(0, at) + b + out.slice(at + a.length);
        from = at + b.length;
      }
      return out;
    })
    .registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
      const chars = [...s];
      if (i < 0n || i > BigInt(chars.length)) throw new Error(`index out of range: ${i}`);
      return chars[Number(i)] ?? '';
    })
    .registerFunction('string.reverse(): string', (s: string) => [...s].reverse().join(''))
    // urls library
    .registerFunction('isURL(string): bool', (s: string) => parseRequestUri(s) !== undefined)
    .registerFunction('url(string): kubernetes.URL', (s: string) => new KubeUrl(s, requireUrl(s)))
    .registerFunction('kubernetes.URL.getScheme(): string', (u: KubeUrl) => (u.source.startsWith('/') ? '' : u.parsed.protocol.replace(/:$/, '')))
    .registerFunction('kubernetes.URL.getHost(): string', (u: KubeUrl) => (u.source.startsWith('/') ? '' : u.parsed.host))
    .registerFunction('kubernetes.URL.getHostname(): string', (u: KubeUrl) =>
      u.source.startsWith('/') ? '' : u.parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    )
    .registerFunction('kubernetes.URL.getPort(): string', (u: KubeUrl) => (u.source.startsWith('/') ? '' : u.parsed.port))
    .registerFunction('kubernetes.URL.getEscapedPath(): string', (u: KubeUrl) => u.parsed.pathname)
    // ip / cidr / quantity predicates (the full typed libraries are not modelled)
    .registerFunction('isIP(string): bool', (s: string) => isIP(s) !== 0)
    .registerFunction('isCIDR(string): bool', (s: string) => isCidr(s))
    .registerFunction('isQuantity(string): bool', (s: string) => quantityPattern.test(s));
  return env;
}

let shared: Environment | undefined;

/** One environment for every CRD: building it is the expensive part, parsing is cheap. */
export function celEnvironment(): Environment {
  shared ??= buildEnvironment();
  return shared;
}

/** The Kubernetes CEL functions this emulator adds on top of cel-js's built-ins. */
export const KUBERNETES_CEL_FUNCTIONS = [
  'isSorted',
  'sum',
  'min',
  'max',
  'indexOf (lists)',
  'lastIndexOf (lists)',
  'find',
  'findAll',
  'replace',
  'charAt',
  'reverse',
  'isURL',
  'url',
  'getScheme',
  'getHost',
  'getHostname',
  'getPort',
  'getEscapedPath',
  'isIP',
  'isCIDR',
  'isQuantity',
] as const;
