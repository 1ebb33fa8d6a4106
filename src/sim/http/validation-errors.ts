// Translates zod issues into the pydantic-style ValidationError items of the spec's
// HTTPValidationError, so a client sees what the production (FastAPI) service sends:
// `loc` is the path into the body prefixed with "body", `type` is pydantic's error type.
import type { z } from 'zod';
import type { ValidationError } from './validation-error.js';

type Issue = z.core.$ZodIssue;
type Loc = (string | number)[];

const TYPE_BY_EXPECTED: Record<string, { type: string; msg: string }> = {
  string: { type: 'string_type', msg: 'Input should be a valid string' },
  number: { type: 'float_type', msg: 'Input should be a valid number' },
  int: { type: 'int_type', msg: 'Input should be a valid integer' },
  boolean: { type: 'bool_type', msg: 'Input should be a valid boolean' },
  object: {
    type: 'model_attributes_type',
    msg: 'Input should be a valid dictionary or object to extract fields from',
  },
  record: { type: 'dict_type', msg: 'Input should be a valid dictionary' },
  array: { type: 'list_type', msg: 'Input should be a valid list' },
};

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function quoteOptions(values: readonly unknown[]): string {
  const quoted = values.map((v) => `'${String(v)}'`);
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1] ?? ''}`;
}

function describe(issue: Issue, input: unknown): { type: string; msg: string } {
  // An absent field fails whatever check comes first (type, enum); pydantic calls it missing.
  if (input === undefined && issue.code !== 'custom') return { type: 'missing', msg: 'Field required' };
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.expected === 'int' && typeof input === 'number') {
        return {
          type: 'int_from_float',
          msg: 'Input should be a valid integer, got a number with a fractional part',
        };
      }
      return TYPE_BY_EXPECTED[issue.expected] ?? { type: `${issue.expected}_type`, msg: issue.message };
    }
    case 'invalid_value':
      return { type: 'enum', msg: `Input should be ${quoteOptions(issue.values)}` };
    case 'too_small':
      if (issue.origin === 'string') {
        return {
          type: 'string_too_short',
          msg: `String should have at least ${String(issue.minimum)} characters`,
        };
      }
      if (issue.origin === 'array') {
        return { type: 'too_short', msg: `List should have at least ${String(issue.minimum)} items` };
      }
      return issue.inclusive === false
        ? { type: 'greater_than', msg: `Input should be greater than ${String(issue.minimum)}` }
        : {
            type: 'greater_than_equal',
            msg: `Input should be greater than or equal to ${String(issue.minimum)}`,
          };
    case 'too_big':
      if (issue.origin === 'string') {
        return {
          type: 'string_too_long',
          msg: `String should have at most ${String(issue.maximum)} characters`,
        };
      }
      if (issue.origin === 'array') {
        return { type: 'too_long', msg: `List should have at most ${String(issue.maximum)} items` };
      }
      return issue.inclusive === false
        ? { type: 'less_than', msg: `Input should be less than ${String(issue.maximum)}` }
        : { type: 'less_than_equal', msg: `Input should be less than or equal to ${String(issue.maximum)}` };
    case 'invalid_format':
      if (issue.format === 'uuid') return { type: 'uuid_parsing', msg: 'Input should be a valid UUID' };
      if (issue.format === 'regex') return { type: 'string_pattern_mismatch', msg: issue.message };
      return { type: `${issue.format}_parsing`, msg: issue.message };
    case 'custom':
      return { type: 'value_error', msg: `Value error, ${issue.message}` };
    default:
      return { type: 'value_error', msg: issue.message };
  }
}

function toLocKey(key: PropertyKey): string | number {
  return typeof key === 'number' ? key : String(key);
}

export function issuesToValidationErrors(
  issues: readonly Issue[],
  input: unknown,
  prefix: Loc,
): ValidationError[] {
  return issues.map((issue) => {
    const { type, msg } = describe(issue, valueAt(input, issue.path));
    return { loc: [...prefix, ...issue.path.map(toLocKey)], msg, type };
  });
}
