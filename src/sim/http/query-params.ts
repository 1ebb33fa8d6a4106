// Query and path parameters, validated the way FastAPI does: every problem is collected
// and answered together as one 422 whose loc starts with "query" (or "path").
import type { ValidationError } from './validation-error.js';
import { validationError } from './http-error.js';
import { isUuid } from './ids.js';

export class ParameterReader {
  private readonly errors: ValidationError[] = [];

  constructor(private readonly query: URLSearchParams) {}

  integer(name: string, fallback: number, bounds: { min?: number; max?: number }): number {
    const raw = this.query.get(name);
    if (raw === null || raw === '') return fallback;
    if (!/^[+-]?\d+$/.test(raw.trim())) {
      this.errors.push({
        loc: ['query', name],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        type: 'int_parsing',
      });
      return fallback;
    }
    const value = Number.parseInt(raw, 10);
    if (bounds.min !== undefined && value < bounds.min) {
      this.errors.push({
        loc: ['query', name],
        msg: `Input should be greater than or equal to ${bounds.min}`,
        type: 'greater_than_equal',
      });
    } else if (bounds.max !== undefined && value > bounds.max) {
      this.errors.push({
        loc: ['query', name],
        msg: `Input should be less than or equal to ${bounds.max}`,
        type: 'less_than_equal',
      });
    }
    return value;
  }

  optionalString(name: string): string | undefined {
    const raw = this.query.get(name);
    return raw === null || raw === '' ? undefined : raw;
  }

  /** A comma-separated list of values from `allowed`; undefined when absent. */
  enumList<T extends string>(name: string, allowed: readonly T[]): T[] | undefined {
    const items = this.list(name);
    if (!items) return undefined;
    const result: T[] = [];
    items.forEach((item) => {
      if ((allowed as readonly string[]).includes(item)) result.push(item as T);
      else {
        this.errors.push({
          loc: ['query', name],
          msg: `Input should be ${allowed.map((a) => `'${a}'`).join(', ')}`,
          type: 'enum',
        });
      }
    });
    return result;
  }

  uuidList(name: string): string[] | undefined {
    const items = this.list(name);
    if (!items) return undefined;
    items.forEach((item, index) => {
      if (!isUuid(item))
        this.errors.push({
          loc: ['query', name, index],
          msg: 'Input should be a valid UUID',
          type: 'uuid_parsing',
        });
    });
    return items.map((item) => item.toLowerCase());
  }

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.query.get(name);
    if (raw === null || raw === '') return fallback;
    const normalized = raw.toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(normalized)) return true;
    if (['false', '0', 'no', 'off'].includes(normalized)) return false;
    this.errors.push({
      loc: ['query', name],
      msg: 'Input should be a valid boolean, unable to interpret input',
      type: 'bool_parsing',
    });
    return fallback;
  }

  private list(name: string): string[] | undefined {
    const raw = this.query.getAll(name);
    if (raw.length === 0) return undefined;
    return raw
      .flatMap((value) => value.split(','))
      .map((v) => v.trim())
      .filter((v) => v !== '');
  }

  /** Throws the collected 422, if any. */
  done(): void {
    if (this.errors.length > 0) throw validationError(this.errors);
  }
}

/** A path parameter that must be a uuid: 422 with loc ["path", name] otherwise. */
export function uuidPathParam(params: Record<string, string>, name: string): string {
  const value = params[name] ?? '';
  if (!isUuid(value)) {
    throw validationError([
      { loc: ['path', name], msg: 'Input should be a valid UUID', type: 'uuid_parsing' },
    ]);
  }
  return value.toLowerCase();
}
