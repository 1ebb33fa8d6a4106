// A watch event's text without its object's metadata.managedFields, before it is decoded.
// Every informer drops managedFields from what it caches (cache-trim.ts), but JSON.parse had
// already built them: one object per owned field per writer, a third of the text of an
// AgentDeployment's event as the operator writes it. Cutting the member out of the text costs
// a scan of the event up to and across that member, with indexOf over strings rather than
// character by character: 4-6.5 us on a 3.9 KB event, whose parse then takes 21-26.5 us
// instead of 28-32.5 (docs/benchmarks.md, fourteenth session).
//
// Exact or nothing: the member is cut only where the event's own `object.metadata` holds it
// (a key spelled "managedFields" anywhere else, an annotation's or a spec's, is data); any
// text this scanner does not expect is returned whole, to be decoded as before.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** `line` without `object.metadata.managedFields`, or `line` itself when it has none. */
export function withoutManagedFields(line: string): string {
  const object = memberValue(line, skipSpace(line, 0), '"object"');
  if (object === undefined) return line;
  const metadata = memberValue(line, object.valueStart, '"metadata"');
  if (metadata === undefined) return line;
  const managedFields = memberValue(line, metadata.valueStart, '"managedFields"');
  if (managedFields === undefined || line.charCodeAt(managedFields.valueStart) !== OPEN_BRACKET) return line;
  const valueEnd = skipValue(line, managedFields.valueStart);
  if (valueEnd < 0) return line;
  const after = skipSpace(line, valueEnd);
  const next = line.charCodeAt(after);
  if (managedFields.commaBefore >= 0) {
    // `, "managedFields": [...]` goes: what followed it (`,` or `}`) stays.
    if (next !== COMMA && next !== CLOSE_BRACE) return line;
    return line.slice(0, managedFields.commaBefore) + line.slice(valueEnd);
  }
  // The first member: `"managedFields": [...] ,` goes, or the whole member when it is the only one.
  if (next === COMMA) return line.slice(0, managedFields.keyStart) + line.slice(after + 1);
  if (next === CLOSE_BRACE) return line.slice(0, managedFields.keyStart) + line.slice(valueEnd);
  return line;
}

interface Member {
  keyStart: number;
  valueStart: number;
  /** The comma before the member, or -1 for an object's first member. */
  commaBefore: number;
}

/**
 * The member named `quotedKey` (its key as written, quotes included) of the object opening at
 * `start`, or undefined when the object has none or the text is not what was expected.
 */
function memberValue(text: string, start: number, quotedKey: string): Member | undefined {
  if (text.charCodeAt(start) !== OPEN_BRACE) return undefined;
  let position = skipSpace(text, start + 1);
  let commaBefore = -1;
  if (text.charCodeAt(position) === CLOSE_BRACE) return undefined;
  for (;;) {
    if (text.charCodeAt(position) !== QUOTE) return undefined;
    const keyStart = position;
    const keyEnd = skipString(text, position);
    if (keyEnd < 0) return undefined;
    const colon = skipSpace(text, keyEnd);
    if (text.charCodeAt(colon) !== COLON) return undefined;
    const valueStart = skipSpace(text, colon + 1);
    if (keyEnd - keyStart === quotedKey.length && text.startsWith(quotedKey, keyStart)) {
      return { keyStart, valueStart, commaBefore };
    }
    const valueEnd = skipValue(text, valueStart);
    if (valueEnd < 0) return undefined;
    position = skipSpace(text, valueEnd);
    const separator = text.charCodeAt(position);
    if (separator !== COMMA) return undefined;
    commaBefore = position;
    position = skipSpace(text, position + 1);
  }
}

/** The index just past the JSON value starting at `start`, or -1. */
function skipValue(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === QUOTE) return skipString(text, start);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) return skipScalar(text, start);
  let depth = 0;
  let position = start;
  while (position < text.length) {
    const code = text.charCodeAt(position);
    if (code === QUOTE) {
      position = skipString(text, position);
      if (position < 0) return -1;
      continue;
    }
    if (code === OPEN_BRACE || code === OPEN_BRACKET) depth += 1;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
      if (depth === 0) return position + 1;
    }
    position += 1;
  }
  return -1;
}

/** The index just past the string whose opening quote is at `start`, or -1. */
function skipString(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    // A quote escaped by an odd number of backslashes is inside the string.
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** A number, true, false or null: up to the next separator. */
function skipScalar(text: string, start: number): number {
  let position = start;
  while (position < text.length) {
    const code = text.charCodeAt(position);
    if (code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || isSpace(code)) break;
    position += 1;
  }
  return position > start ? position : -1;
}

function skipSpace(text: string, start: number): number {
  let position = start;
  while (isSpace(text.charCodeAt(position))) position += 1;
  return position;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}
