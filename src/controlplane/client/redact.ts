// A server may echo what it was sent (a detail that quotes a secret value, a validation
// message that includes the input). Server text is kept only for debug logs, and passes
// through here first. Two rules, because neither alone is enough:
//
// 1. Known secrets (the credential and the request's secret values) of 4 characters or more
//    are replaced wherever they appear, in every form an echo can take: as is, JSON-escaped
//    (once or twice: quotes, backslashes, a PEM key's newlines as `\n`), URL-encoded
//    (`%20` or `+` for spaces), hex (either case) and base64 (standard and URL-safe, with or
//    without padding, and at each of the three byte alignments it can take inside a longer
//    encoded value, such as a base64 header or body that holds the key).
//    Each line of a multi-line secret (a PEM body) of 8 characters or more is replaced too,
//    in case an echo re-wraps it.
// 2. Whatever the length, and whether known or not, the value of a secret field is replaced:
//    a `value`, `secret`, `password`, `token` or `api_key`/`apiKey` field in JSON (plain or
//    escaped inside another JSON string), in a Python-style repr (`'value': '...'`) and in a
//    form or query string (`value=...`). Shorter known values are not replaced elsewhere:
//    a 3-character value such as "abc" would mangle every word that contains it, and a
//    short value outside a secret field cannot be told from ordinary text.

const MIN_REDACTABLE_LENGTH = 4;
const MIN_REDACTABLE_LINE = 8;
export const REDACTED = '[REDACTED]';

const SECRET_FIELD = String.raw`(?:value|secret|password|passwd|token|api[_-]?key|apikey|private[_-]?key)`;
/** The opening of a JSON secret field, `"value": "`, its quotes escaped any number of times. */
const JSON_SECRET_FIELD = new RegExp(String.raw`(\\*)"${SECRET_FIELD}\1"\s*:\s*\1"`, 'gi');
/** `'value': '...'` or `'value': "..."` (Python repr, as some proxies print a body). */
const REPR_SECRET_FIELD = new RegExp(
  String.raw`('${SECRET_FIELD}'\s*:\s*)(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")`,
  'gi',
);
/** `value=...` in a form body or query string, up to the next separator. */
const FORM_SECRET_FIELD = new RegExp(String.raw`((?:^|[?&\s;,{(])${SECRET_FIELD}=)([^&\s;,"'})]*)`, 'gi');

/**
 * Where the JSON string that starts at `start` ends, when its quotes are escaped with
 * `slashes` backslashes (0 in plain JSON, 1 inside a JSON string, 3 two levels down):
 * at escaping level k a closing quote follows a run of backslashes r with
 * r mod 2^(k+1) = 2^k - 1, while a quote inside the value follows a run with another
 * remainder. Returns the offset of the closing run, or the text's end when it is cut short.
 */
function endOfEscapedString(text: string, start: number, slashes: number): number {
  const modulus = (slashes + 1) * 2;
  for (let i = start; i < text.length; i++) {
    if (text.charAt(i) !== '"') continue;
    let run = 0;
    while (i - run - 1 >= start && text.charAt(i - run - 1) === '\\') run++;
    if (run % modulus === slashes) return i - slashes;
  }
  return text.length;
}

function redactJsonSecretFields(text: string): string {
  let result = '';
  let copiedUpTo = 0;
  JSON_SECRET_FIELD.lastIndex = 0;
  for (let match = JSON_SECRET_FIELD.exec(text); match !== null; match = JSON_SECRET_FIELD.exec(text)) {
    const slashes = match[1]?.length ?? 0;
    // Only 2^k - 1 backslashes are an escaping level; anything else is not JSON.
    if (((slashes + 1) & slashes) !== 0) continue;
    const valueStart = match.index + match[0].length;
    const valueEnd = endOfEscapedString(text, valueStart, slashes);
    result += `${text.slice(copiedUpTo, valueStart)}${REDACTED}`;
    copiedUpTo = valueEnd;
    JSON_SECRET_FIELD.lastIndex = Math.max(valueEnd, valueStart);
  }
  return result + text.slice(copiedUpTo);
}

function jsonEscaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** The shortest base64 run worth replacing: 6 bytes of the secret. */
const MIN_BASE64_CORE = 8;

/**
 * The base64 characters that encode `secret` whatever surrounds it, at byte offset 0, 1 and
 * 2 of a 3-byte group: the groups that hold secret bytes only. (The group that mixes in the
 * bytes before or after depends on them, so it is left out.)
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const cores: string[] = [];
  for (const offset of [0, 1, 2]) {
    const lead = (3 - offset) % 3;
    const aligned = bytes.subarray(lead);
    const whole = aligned.subarray(0, aligned.length - (aligned.length % 3));
    const core = whole.toString('base64');
    if (core.length >= MIN_BASE64_CORE) cores.push(core, whole.toString('base64url'));
  }
  return cores;
}

/** Every form of `secret` an echo can carry (the list above); each is replaced where it appears. */
export function encodedForms(secret: string): string[] {
  const base64 = Buffer.from(secret, 'utf8').toString('base64');
  const hex = Buffer.from(secret, 'utf8').toString('hex');
  const once = jsonEscaped(secret);
  const forms = [
    secret,
    once,
    jsonEscaped(once),
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%20/g, '+'),
    base64,
    base64.replace(/=+$/, ''),
    Buffer.from(secret, 'utf8').toString('base64url'),
    ...base64Cores(secret),
    hex,
    hex.toUpperCase(),
  ];
  if (/[\r\n]/.test(secret)) {
    forms.push(...secret.split(/\r?\n/).filter((line) => line.trim().length >= MIN_REDACTABLE_LINE));
  }
  return forms;
}

/** Replaces the value of every secret field (rule 2), whatever its length. */
export function redactSecretFields(text: string): string {
  return redactJsonSecretFields(text)
    .replace(REPR_SECRET_FIELD, (_match, open: string) => `${open}'${REDACTED}'`)
    .replace(FORM_SECRET_FIELD, (_match, open: string) => `${open}${REDACTED}`);
}

export function redactSecrets(text: string, secrets: readonly string[]): string {
  // Longest first, so that a secret containing another is replaced whole.
  const forms = [
    ...new Set(
      secrets.filter((s) => s.length >= MIN_REDACTABLE_LENGTH).flatMap((secret) => encodedForms(secret)),
    ),
  ]
    .filter((form) => form.length >= MIN_REDACTABLE_LENGTH)
    .sort((a, b) => b.length - a.length);
  let result = redactSecretFields(text);
  for (const form of forms) result = result.split(form).join(REDACTED);
  return result;
}

/** Long server texts are cut so that one odd response cannot flood logs. */
export function truncate(text: string, max = 500): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * Rule 2 over every string of a log record (nested up to `depth` levels): the logger's
 * second line of defence, for server text that reached a log field some other way.
 */
export function redactSecretFieldsDeep(value: unknown, depth = 3): unknown {
  if (typeof value === 'string') return redactSecretFields(value);
  if (depth === 0 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => redactSecretFieldsDeep(item, depth - 1));
  // Errors and other class instances are left to the logger's serializers.
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) result[key] = redactSecretFieldsDeep(item, depth - 1);
  return result;
}
