// What of a control-plane 4xx may reach events, conditions and info logs: the field
// location and the broken rule, never the server's own text. A proxy or a validation layer
// may echo the request (secret values included, in any escaping), so the summary is built
// only from fixed phrases and from locations that match a strict field-path grammar.
import type { ValidationError } from '../models/index.js';

/** A field path segment as the API names fields: lower-case identifiers, or list indices. */
const LOC_SEGMENT = /^[a-z][a-z0-9_]{0,63}$/;
/** The top-level request fields a 400 detail can start with. */
const DETAIL_LOCATION =
  /^(name|source|source_config|source_revision_config|secrets)((?:\.[a-z][a-z0-9_]{0,63}|\[\d{1,4}\])*)(?=[\s:]|$)/;

/** Rule types of the 422 body (pydantic's), described in our words. */
const RULE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  missing: 'field required',
  json_invalid: 'the body is not valid JSON',
  uuid_parsing: 'must be a UUID',
  uuid_type: 'must be a UUID',
  string_type: 'must be a string',
  string_too_short: 'too short',
  string_too_long: 'too long',
  string_pattern_mismatch: 'does not match the required pattern',
  int_parsing: 'must be an integer',
  int_type: 'must be an integer',
  float_parsing: 'must be a number',
  bool_parsing: 'must be a boolean',
  greater_than_equal: 'below the minimum',
  less_than_equal: 'above the maximum',
  enum: 'not one of the allowed values',
  literal_error: 'not one of the allowed values',
  list_type: 'must be a list',
  dict_type: 'must be an object',
  model_type: 'must be an object',
  extra_forbidden: 'unknown field',
  value_error: 'invalid value',
  client_validation: 'invalid value',
};

/** 400 details the control plane sends, by the rule they state (matched, never quoted). */
const DETAIL_RULES: readonly [RegExp, string][] = [
  [/already exists/i, 'a deployment of that name already exists in this tenant'],
  [/is required/i, 'required for this source'],
  [/cannot be changed/i, 'cannot be changed after creation'],
  [/does not apply/i, 'does not apply to this source'],
  [/is not unique/i, 'must be unique'],
  [/must not be empty/i, 'must not be empty'],
  [/must not exceed/i, 'a minimum exceeds its maximum'],
  [/must not be below/i, 'a limit is below its request'],
  [/must not be negative/i, 'must not be negative'],
  [/is not a listener|not found/i, 'names something that does not exist in this tenant'],
  [/is being deleted/i, 'the deployment is being deleted'],
  [/build_on_push/i, 'source_config.build_on_push cannot be enabled with a tag ref'],
];

/** Fixed descriptions of a status when the body says nothing usable. */
const STATUS_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'the control plane refused the request as invalid',
  401: 'the API key was not accepted',
  403: 'the API key may not act on this tenant or resource',
  404: 'not found',
  405: 'method not allowed',
  409: 'conflict with the current state',
  413: 'the request is too large',
  415: 'unsupported media type',
  422: 'the request failed validation',
  408: 'request timeout',
  425: 'too early',
  429: 'rate limited',
};

function describeStatus(status: number): string {
  return STATUS_DESCRIPTIONS[status] ?? (status >= 500 ? 'server error' : 'unexpected status');
}

function locationOf(loc: readonly (string | number)[]): string {
  const parts = loc.map((part) =>
    typeof part === 'number' ? `[${part}]` : LOC_SEGMENT.test(part) ? `.${part}` : '.?',
  );
  return parts.join('').replace(/^\./, '') || '(body)';
}

function ruleOf(type: string): string {
  return RULE_DESCRIPTIONS[type] ?? (LOC_SEGMENT.test(type) ? type.replace(/_/g, ' ') : 'invalid value');
}

/** The 422 entries reduced to location and rule, with our own wording as `msg`. */
export function safeValidationEntries(entries: readonly ValidationError[]): ValidationError[] {
  return entries.map((entry) => {
    const type = LOC_SEGMENT.test(entry.type) ? entry.type : 'value_error';
    return {
      loc: entry.loc.map((part) => (typeof part === 'number' || LOC_SEGMENT.test(part) ? part : '?')),
      msg: ruleOf(type),
      type,
    };
  });
}

export function summarizeValidation(entries: readonly ValidationError[]): string {
  const shown = entries.slice(0, 5).map((entry) => `${locationOf(entry.loc)}: ${ruleOf(entry.type)}`);
  const more = entries.length > shown.length ? `; and ${entries.length - shown.length} more` : '';
  return shown.length === 0 ? (STATUS_DESCRIPTIONS[422] ?? '') : `${shown.join('; ')}${more}`;
}

/** A `{"detail": "..."}` text reduced to the field it names (if any) and the rule it states. */
export function summarizeDetail(status: number, detail: string | undefined): string {
  const fallback = describeStatus(status);
  if (detail === undefined || status !== 400) return fallback;
  const rule = DETAIL_RULES.find(([pattern]) => pattern.test(detail))?.[1];
  const location = /already exists/i.test(detail) ? 'name' : DETAIL_LOCATION.exec(detail)?.[0];
  if (rule === undefined) return location === undefined ? fallback : `${location}: ${fallback}`;
  return location === undefined ? rule : `${location}: ${rule}`;
}
