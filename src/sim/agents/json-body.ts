// Request bodies of the runtime as JSON. Malformed JSON, and JSON nested deeper than every
// emulator accepts (src/sim/http/json-nesting.ts), are the runtime's plain-text 400.
import { MAX_JSON_DEPTH, jsonTextTooDeepAt } from '../http/json-nesting.js';
import { RuntimeHttpError } from './runtime-error.js';

/** The body's JSON value; undefined for an empty body. */
export function parseRuntimeJson(raw: string): unknown {
  if (raw.trim() === '') return undefined;
  if (jsonTextTooDeepAt(raw) !== undefined) {
    throw new RuntimeHttpError(400, `Request body nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new RuntimeHttpError(400, 'Malformed JSON in request body');
  }
}
