// Parses a request body as JSON, answering malformed input the way the production
// service (FastAPI) does: 422 with loc ["body", <character position>] and type
// "json_invalid". V8's messages do not always carry a position, so on failure a small
// scanner finds where the text stops being JSON. JSON nested deeper than MAX_JSON_DEPTH is
// refused the same way, at the bracket that goes past the limit, before it is parsed (see
// src/sim/http/json-nesting.ts for why).
import { MAX_JSON_DEPTH, jsonTextTooDeepAt } from './json-nesting.js';
import { validationError, type HttpError } from './http-error.js';

/** The 422 for JSON text nested too deep, or undefined; `loc` places it inside the request. */
export function jsonNestingError(text: string, loc: (string | number)[]): HttpError | undefined {
  const at = jsonTextTooDeepAt(text);
  if (at === undefined) return undefined;
  return validationError([
    { loc: [...loc, at], msg: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`, type: 'json_invalid' },
  ]);
}

export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') {
    throw validationError([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
  }
  const tooDeep = jsonNestingError(text, ['body']);
  if (tooDeep !== undefined) throw tooDeep;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const position = findJsonErrorPosition(text);
    throw validationError([{ loc: ['body', position], msg: 'JSON decode error', type: 'json_invalid' }]);
  }
}

/** The offset of the first character that makes `text` invalid JSON (text.length at a premature end). */
export function findJsonErrorPosition(text: string): number {
  const scanner = new JsonScanner(text);
  try {
    scanner.skipWhitespace();
    scanner.value();
    scanner.skipWhitespace();
    return scanner.pos < text.length ? scanner.pos : text.length;
  } catch (error) {
    if (error instanceof ScanError) return error.position;
    throw error;
  }
}

class ScanError extends Error {
  constructor(readonly position: number) {
    super(`invalid JSON at ${position}`);
  }
}

class JsonScanner {
  pos = 0;
  constructor(private readonly text: string) {}

  private fail(): never {
    throw new ScanError(Math.min(this.pos, this.text.length));
  }

  skipWhitespace(): void {
    while (this.pos < this.text.length && ' \t\n\r'.includes(this.text.charAt(this.pos))) this.pos++;
  }

  private expect(char: string): void {
    if (this.text.charAt(this.pos) !== char) this.fail();
    this.pos++;
  }

  value(): void {
    const char = this.text.charAt(this.pos);
    if (char === '{') return this.object();
    if (char === '[') return this.array();
    if (char === '"') return this.string();
    if (char === '-' || (char >= '0' && char <= '9')) return this.number();
    for (const literal of ['true', 'false', 'null']) {
      if (this.text.startsWith(literal, this.pos)) {
        this.pos += literal.length;
        return;
      }
    }
    this.fail();
  }

  private object(): void {
    this.expect('{');
    this.skipWhitespace();
    if (this.text.charAt(this.pos) === '}') {
      this.pos++;
      return;
    }
    for (;;) {
      this.skipWhitespace();
      this.string();
      this.skipWhitespace();
      this.expect(':');
      this.skipWhitespace();
      this.value();
      this.skipWhitespace();
      if (this.text.charAt(this.pos) === ',') {
        this.pos++;
        continue;
      }
      this.expect('}');
      return;
    }
  }

  private array(): void {
    this.expect('[');
    this.skipWhitespace();
    if (this.text.charAt(this.pos) === ']') {
      this.pos++;
      return;
    }
    for (;;) {
      this.skipWhitespace();
      this.value();
      this.skipWhitespace();
      if (this.text.charAt(this.pos) === ',') {
        this.pos++;
        continue;
      }
      this.expect(']');
      return;
    }
  }

  private string(): void {
    this.expect('"');
    while (this.pos < this.text.length) {
      const char = this.text.charAt(this.pos);
      if (char === '"') {
        this.pos++;
        return;
      }
      if (char.charCodeAt(0) < 0x20) this.fail();
      if (char === '\\') {
        const escape = this.text.charAt(this.pos + 1);
        if (escape === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.pos + 2, this.pos + 6))) {
            this.pos += 2;
            this.fail();
          }
          this.pos += 6;
          continue;
        }
        if (!'"\\/bfnrt'.includes(escape) || escape === '') {
          this.pos++;
          this.fail();
        }
        this.pos += 2;
        continue;
      }
      this.pos++;
    }
    this.fail();
  }

  private number(): void {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.pos));
    if (!match) this.fail();
    this.pos += match[0].length;
  }
}
