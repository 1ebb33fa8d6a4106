// The shape limits every body the kube emulator reads must meet, whatever its format (JSON,
// the YAML of server-side apply, protobuf) and whatever the verb, checked before the body
// reaches code that recurses over it and before anything is stored: at most MAX_JSON_DEPTH
// levels of nesting (see src/sim/http/json-nesting.ts for why), and, for YAML, no more
// values after alias expansion than a body of the size limit could spell out. Both are a
// 400 BadRequest naming the rule, the status the real server gives a body it cannot decode.
import { MAX_JSON_DEPTH, jsonTextTooDeepAt, nestingProblem } from '../http/json-nesting.js';
import { badRequest, type ApiError } from './api-error.js';

/** The real server's default request size limit (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export function nestingError(what: string): ApiError {
  return badRequest(
    `${what} is nested deeper than ${MAX_JSON_DEPTH} levels, which this emulator does not accept`,
  );
}

/** Refuses JSON text that nests too deep, before it is parsed. */
export function checkJsonTextNesting(text: string): void {
  const at = jsonTextTooDeepAt(text);
  if (at !== undefined) throw nestingError(`the request body (at offset ${at})`);
}

/**
 * Refuses a decoded value that nests too deep, or that holds more values than any body of
 * MAX_BODY_BYTES could (only YAML aliases, each repeating a whole anchored node, get there).
 */
export function checkValueShape(value: unknown, what: string): void {
  const problem = nestingProblem(value, { maxValues: MAX_BODY_BYTES });
  if (problem === 'too-deep') throw nestingError(what);
  if (problem === 'too-many-values') {
    throw badRequest(
      `${what} expands to more than ${MAX_BODY_BYTES} values through YAML aliases, which this emulator does not accept`,
    );
  }
}
