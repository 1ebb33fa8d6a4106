// How deeply a request body may nest arrays and objects. Every emulator handles stored values
// with recursive code (JSON.stringify, structuredClone, merges, equality, schema validation),
// and V8 runs out of stack near 2,000 levels of it. A body nested deeper than that was once
// stored and then could not be answered: the write answered 500 and every later read of the
// object, and every list holding it, answered 500 too. So the emulators refuse such a body
// before any of that code runs, and before anything is stored.
//
// The real Kubernetes API server's JSON decoder stops at 10,000 levels; the emulators cannot
// go that far. 256 levels is far beyond what legitimate objects need (this project's CRDs are
// at most 22 levels deep, and generated CRDs that embed a whole pod template stay well under
// 100) and eight times below where the emulators' own recursion fails.

export const MAX_JSON_DEPTH = 256;

/**
 * The offset in JSON text of the `[` or `{` that opens nesting level `limit + 1`, or
 * undefined when the text nests no deeper than `limit`. Runs before JSON.parse, so that a
 * deep body costs one scan. Strings are skipped; the text need not be valid JSON (the parser
 * reports that).
 */
export function jsonTextTooDeepAt(text: string, limit = MAX_JSON_DEPTH): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c /* \ */) i++;
      else if (char === 0x22 /* " */) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x5b /* [ */ || char === 0x7b /* { */) {
      depth++;
      if (depth > limit) return i;
    } else if (char === 0x5d /* ] */ || char === 0x7d /* } */) {
      depth = Math.max(0, depth - 1);
    }
  }
  return undefined;
}

export type NestingProblem = 'too-deep' | 'too-many-values';

export interface NestingLimits {
  /** Arrays and objects inside one another, the outermost counted (default MAX_JSON_DEPTH). */
  maxDepth?: number;
  /**
   * Values in all, a value reached twice counted twice. Parsed JSON can never exceed its
   * own length in values; a YAML document can, when aliases repeat an anchored node (a
   * "billion laughs" document is a few hundred bytes that expand to 10^9 values).
   */
  maxValues?: number;
}

function isContainer(value: unknown): value is unknown[] | Record<string, unknown> {
  if (Array.isArray(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  // Plain objects only: a Buffer or a Date is a leaf, not a tree of bytes or fields.
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Walks a parsed value without recursion; what is wrong with its shape, if anything. */
export function nestingProblem(value: unknown, limits: NestingLimits = {}): NestingProblem | undefined {
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH;
  const maxValues = limits.maxValues ?? Number.POSITIVE_INFINITY;
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  let values = 0;
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    values++;
    if (values > maxValues) return 'too-many-values';
    const current = item.value;
    if (!isContainer(current)) continue;
    const depth = item.depth + 1;
    if (depth > maxDepth) return 'too-deep';
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      pending.push({ value: child, depth });
    }
  }
  return undefined;
}
