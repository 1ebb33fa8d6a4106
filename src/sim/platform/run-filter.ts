// The part of the platform's filter language that run queries by metadata need:
// `and(...)`, `or(...)`, `eq(field, value)`, `neq(field, value)`, `has(tags, value)` and
// `in(field, [values])`, over id, trace_id, name, run_type, status, tags, metadata_key and
// metadata_value. Inside one `and`, `eq(metadata_key, k)` and `eq(metadata_value, v)` pair up:
// they match a run that has the key k WITH the value v, as the service documents.
import { HttpError } from '../http/http-error.js';
import { MAX_JSON_DEPTH } from '../http/json-nesting.js';
import { runMetadata, type RunRecord } from './trace-store.js';

type Literal = string | number | boolean | Literal[];
interface Call {
  fn: string;
  args: (Call | Literal | { field: string })[];
}
export type RunPredicate = (run: RunRecord) => boolean;

function invalid(why: string): HttpError {
  return new HttpError(400, { detail: `Invalid filter: ${why}` });
}

class Parser {
  private pos = 0;
  /** Calls and lists open around the current position: the parser recurses once per level. */
  private depth = 0;
  constructor(private readonly text: string) {}

  /** Enters one more level of nesting, within the limit every emulator body has. */
  private nest<T>(parse: () => T): T {
    this.depth += 1;
    if (this.depth > MAX_JSON_DEPTH) throw invalid(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    const result = parse();
    this.depth -= 1;
    return result;
  }

  parse(): Call {
    const call = this.call();
    this.space();
    if (this.pos !== this.text.length) throw invalid(`unexpected text at ${this.pos}`);
    return call;
  }

  private space(): void {
    while (/\s/.test(this.text.charAt(this.pos))) this.pos += 1;
  }

  private word(): string {
    this.space();
    const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.text.slice(this.pos));
    if (!match) throw invalid(`expected a name at ${this.pos}`);
    this.pos += match[0].length;
    return match[0];
  }

  private call(): Call {
    return this.nest(() => this.callBody());
  }

  private callBody(): Call {
    const fn = this.word();
    this.expect('(');
    const args: Call['args'] = [];
    this.space();
    if (this.text.charAt(this.pos) !== ')') {
      for (;;) {
        args.push(this.argument());
        this.space();
        if (this.text.charAt(this.pos) !== ',') break;
        this.pos += 1;
      }
    }
    this.expect(')');
    return { fn, args };
  }

  private expect(char: string): void {
    this.space();
    if (this.text.charAt(this.pos) !== char) throw invalid(`expected "${char}" at ${this.pos}`);
    this.pos += 1;
  }

  private argument(): Call['args'][number] {
    this.space();
    const char = this.text.charAt(this.pos);
    if (char === '"' || char === "'") return this.string(char);
    if (char === '[') return this.nest(() => this.list());
    const number = /^-?\d+(\.\d+)?/.exec(this.text.slice(this.pos));
    if (number) {
      this.pos += number[0].length;
      return Number(number[0]);
    }
    const start = this.pos;
    const name = this.word();
    this.space();
    if (this.text.charAt(this.pos) === '(') {
      this.pos = start;
      return this.call();
    }
    if (name === 'true' || name === 'false') return name === 'true';
    return { field: name };
  }

  private list(): Literal[] {
    this.pos += 1;
    const items: Literal[] = [];
    this.space();
    while (this.text.charAt(this.pos) !== ']') {
      const item = this.argument();
      if (typeof item === 'object' && !Array.isArray(item)) throw invalid('lists hold literals only');
      items.push(item);
      this.space();
      if (this.text.charAt(this.pos) === ',') this.pos += 1;
      else if (this.text.charAt(this.pos) !== ']') throw invalid(`expected "," or "]" at ${this.pos}`);
      this.space();
    }
    this.pos += 1;
    return items;
  }

  private string(quote: string): string {
    let value = '';
    this.pos += 1;
    while (this.pos < this.text.length && this.text.charAt(this.pos) !== quote) {
      if (this.text.charAt(this.pos) === '\\') this.pos += 1;
      value += this.text.charAt(this.pos);
      this.pos += 1;
    }
    if (this.pos >= this.text.length) throw invalid('unterminated string');
    this.pos += 1;
    return value;
  }
}

const FIELDS = new Set([
  'id',
  'trace_id',
  'name',
  'run_type',
  'status',
  'tags',
  'metadata_key',
  'metadata_value',
]);

const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

function fieldValues(run: RunRecord, field: string): string[] {
  switch (field) {
    case 'id':
    case 'trace_id':
    case 'name':
    case 'run_type':
    case 'status':
      return [String(run[field])];
    case 'tags':
      return run.tags;
    case 'metadata_key':
      return Object.keys(runMetadata(run));
    case 'metadata_value':
      return Object.values(runMetadata(run)).map(text);
    default:
      return [];
  }
}

function comparison(call: Call): { field: string; values: string[] } {
  const [target, value] = call.args;
  if (call.args.length !== 2 || target === undefined || typeof target !== 'object' || !('field' in target)) {
    throw invalid(`${call.fn} takes a field and a value`);
  }
  if (value === undefined || (typeof value === 'object' && !Array.isArray(value))) {
    throw invalid(`${call.fn} takes a literal value`);
  }
  if (!FIELDS.has(target.field)) throw invalid(`unsupported field "${target.field}"`);
  const values = Array.isArray(value) ? value.map(text) : [text(value)];
  return { field: target.field, values };
}

function compile(call: Call): RunPredicate {
  const children = (): RunPredicate[] =>
    call.args.map((arg) => {
      if (typeof arg !== 'object' || Array.isArray(arg) || !('fn' in arg))
        throw invalid(`${call.fn} takes conditions`);
      return compile(arg);
    });
  switch (call.fn) {
    case 'and': {
      const pair = metadataPair(call);
      const rest = children();
      return (run) => (pair === undefined || pair(run)) && rest.every((p) => p(run));
    }
    case 'or': {
      const any = children();
      return (run) => any.some((p) => p(run));
    }
    case 'eq':
    case 'has':
    case 'in': {
      const { field, values } = comparison(call);
      return (run) => fieldValues(run, field).some((v) => values.includes(v));
    }
    case 'neq': {
      const { field, values } = comparison(call);
      return (run) => !fieldValues(run, field).some((v) => values.includes(v));
    }
    default:
      throw invalid(`unsupported function "${call.fn}"`);
  }
}

/** `eq(metadata_key, k)` with `eq(metadata_value, v)` in one `and`: the key k holding v. */
function metadataPair(call: Call): RunPredicate | undefined {
  const eqOf = (field: string): string | undefined => {
    for (const arg of call.args) {
      if (typeof arg === 'object' && !Array.isArray(arg) && 'fn' in arg && arg.fn === 'eq') {
        const { field: f, values } = comparison(arg);
        if (f === field) return values[0];
      }
    }
    return undefined;
  };
  const key = eqOf('metadata_key');
  const value = eqOf('metadata_value');
  if (key === undefined || value === undefined) return undefined;
  return (run) => {
    const metadata = runMetadata(run);
    return key in metadata && text(metadata[key]) === value;
  };
}

export function compileRunFilter(expression: string): RunPredicate {
  return compile(new Parser(expression).parse());
}
