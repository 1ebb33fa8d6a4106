// The subset of Kubernetes JSONPath that printer columns use: fields, indexes, wildcards
// and filters such as `.status.conditions[?(@.type=="Ready")].status`.
import { isJsonObject } from './kube-object.js';

type FilterOp = '==' | '!=' | '<' | '>' | 'exists';

type Segment =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: Segment[]; op: FilterOp; value: unknown };

function parseLiteral(text: string): unknown {
  const trimmed = text.trim();
  if (/^(".*"|'.*')$/.test(trimmed)) return trimmed.slice(1, -1);
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true';
  const number = Number(trimmed);
  return Number.isNaN(number) ? trimmed : number;
}

/** Parses a path like `.a.b[0]['c'][?(@.x=="y")].z`; braces around the whole path are allowed. */
export function parseJsonPath(expression: string): Segment[] {
  let text = expression.trim();
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1).trim();
  if (text.startsWith('$')) text = text.slice(1);
  const segments: Segment[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === '.') {
      const match = /^\.([^.[\]]*)/.exec(text.slice(i));
      const name = match?.[1] ?? '';
      if (name) segments.push({ kind: 'field', name });
      i += (match?.[0].length ?? 1);
    } else if (char === '[') {
      const end = findClosingBracket(text, i);
      const inner = text.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') segments.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) segments.push({ kind: 'index', index: Number(inner) });
      else if (/^(".*"|'.*')$/.test(inner)) segments.push({ kind: 'field', name: inner.slice(1, -1) });
      else if (inner.startsWith('?(') && inner.endsWith(')')) segments.push(parseFilter(inner.slice(2, -1)));
      else throw new Error(`unsupported JSONPath segment [${inner}] in ${expression}`);
    } else {
      const match = /^([^.[\]]+)/.exec(text.slice(i));
      segments.push({ kind: 'field', name: match?.[1] ?? '' });
      i += match?.[0].length ?? 1;
    }
  }
  return segments;
}

function findClosingBracket(text: string, open: number): number {
  let quote: string | undefined;
  let depth = 0;
  for (let i = open; i < text.length; i += 1) {
    const char = text[i];
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '[' || char === '(') depth += 1;
    else if (char === ']' || char === ')') {
      depth -= 1;
      if (depth === 0 && char === ']') return i;
    }
  }
  throw new Error(`unclosed [ in JSONPath ${text}`);
}

function parseFilter(condition: string): Segment {
  const match = /^@((?:\.[^.=!<>\s]+)+)\s*(==|!=|<|>)\s*(.+)$/.exec(condition.trim());
  if (match) {
    const op = match[2] as '==' | '!=' | '<' | '>';
    return { kind: 'filter', path: parseJsonPath(match[1] ?? ''), op, value: parseLiteral(match[3] ?? '') };
  }
  const exists = /^@((?:\.[^.\s]+)+)$/.exec(condition.trim());
  if (exists) return { kind: 'filter', path: parseJsonPath(exists[1] ?? ''), op: 'exists', value: undefined };
  throw new Error(`unsupported JSONPath filter ${condition}`);
}

function compare(left: unknown, op: FilterOp, right: unknown): boolean {
  switch (op) {
    case 'exists':
      return left !== undefined;
    case '==':
      return left === right;
    case '!=':
      return left !== right;
    case '<':
      return typeof left === typeof right && (left as number) < (right as number);
    case '>':
      return typeof left === typeof right && (left as number) > (right as number);
  }
}

function step(values: unknown[], segment: Segment): unknown[] {
  const next: unknown[] = [];
  for (const value of values) {
    switch (segment.kind) {
      case 'field':
        if (isJsonObject(value) && value[segment.name] !== undefined) next.push(value[segment.name]);
        break;
      case 'index':
        if (Array.isArray(value)) {
          const item = value[segment.index < 0 ? value.length + segment.index : segment.index];
          if (item !== undefined) next.push(item);
        }
        break;
      case 'all':
        if (Array.isArray(value)) next.push(...(value as unknown[]));
        else if (isJsonObject(value)) next.push(...Object.values(value));
        break;
      case 'filter': {
        const items = Array.isArray(value) ? (value as unknown[]) : [value];
        for (const item of items) {
          const found = evaluate(item, segment.path);
          if (found.some((f) => compare(f, segment.op, segment.value))) next.push(item);
        }
        break;
      }
    }
  }
  return next;
}

function evaluate(root: unknown, segments: Segment[]): unknown[] {
  return segments.reduce<unknown[]>((values, segment) => step(values, segment), [root]);
}

/** Every value the path selects in `root`, in document order. */
export function evaluateJsonPath(root: unknown, segments: Segment[]): unknown[] {
  return evaluate(root, segments);
}

export type CompiledJsonPath = Segment[];
