// String formats the apiextensions-apiserver checks (kube-openapi's strfmt registry as
// CRDs see it). Unknown formats, and the numeric ones (int32, int64, float, double),
// are not string checks and pass, as upstream.
import { isIP } from 'node:net';

const uuidAny = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuidVersion = (v: number): RegExp => new RegExp(`^[0-9a-f]{8}-?[0-9a-f]{4}-?${v}[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`, 'i');
const dateTime = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?$/;
const date = /^\d{4}-\d{2}-\d{2}$/;
const hostnameLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/i;
const email = /^[^\s@]+@[^\s@]+$/;
const mac = /^([0-9a-f]{2}([:-]))([0-9a-f]{2}\2){4}[0-9a-f]{2}$|^([0-9a-f]{4}\.){2}[0-9a-f]{4}$/i;
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const goDuration = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h|d|w))+$/;
const hexColor = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i;
const rgbColor = /^rgb\(\s*\d{1,3}%?\s*,\s*\d{1,3}%?\s*,\s*\d{1,3}%?\s*\)$/i;
const bsonObjectId = /^[0-9a-f]{24}$/i;

function validDate(text: string): boolean {
  const parsed = new Date(`${text.slice(0, 10)}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === text.slice(0, 10);
}

function isHostname(text: string): boolean {
  if (text.length === 0 || text.length > 255) return false;
  return text
    .replace(/\.$/, '')
    .split('.')
    .every((label) => label.length <= 63 && hostnameLabel.test(label));
}

function isUri(text: string): boolean {
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}

function isCidr(text: string): boolean {
  const [address, bits, extra] = text.split('/');
  if (address === undefined || bits === undefined || extra !== undefined || !/^\d+$/.test(bits)) return false;
  const family = isIP(address);
  return family !== 0 && Number(bits) <= (family === 4 ? 32 : 128);
}

const checks: Record<string, (text: string) => boolean> = {
  'date-time': (t) => dateTime.test(t) && validDate(t),
  datetime: (t) => dateTime.test(t) && validDate(t),
  date: (t) => date.test(t) && validDate(t),
  uuid: (t) => uuidAny.test(t),
  uuid3: (t) => uuidVersion(3).test(t),
  uuid4: (t) => uuidVersion(4).test(t),
  uuid5: (t) => uuidVersion(5).test(t),
  email: (t) => email.test(t),
  hostname: isHostname,
  ipv4: (t) => isIP(t) === 4,
  ipv6: (t) => isIP(t) === 6,
  cidr: isCidr,
  mac: (t) => mac.test(t),
  byte: (t) => base64.test(t),
  duration: (t) => goDuration.test(t),
  uri: isUri,
  hexcolor: (t) => hexColor.test(t),
  rgbcolor: (t) => rgbColor.test(t),
  bsonobjectid: (t) => bsonObjectId.test(t),
  password: () => true,
};

/** Whether `text` satisfies `format`; formats the server does not check always pass. */
export function matchesFormat(format: string, text: string): boolean {
  const check = checks[format];
  return check === undefined ? true : check(text);
}

export const CHECKED_FORMATS = Object.keys(checks);
