// Query parameters and headers of a resource request, parsed once and checked the way the
// real server checks them (bad values are a 400 naming the parameter).
import { badRequest } from './api-error.js';
import type { FieldValidation } from './writes.js';
import type { IncludeObject } from './table.js';

export interface RequestOptions {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  /** The `fieldManager` parameter (required for server-side apply). */
  fieldManager: string | undefined;
  /** The `force` parameter of server-side apply; undefined when not sent. */
  force: boolean | undefined;
  labelSelector: string | null;
  fieldSelector: string | null;
  limit: number | undefined;
  continueToken: string | null;
  resourceVersion: string | null;
  watch: boolean;
  allowWatchBookmarks: boolean;
  sendInitialEvents: boolean;
  timeoutSeconds: number | undefined;
  includeObject: IncludeObject;
  /** The Table apiVersion the client asked for, when it asked for a Table. */
  table: 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1' | undefined;
}

/**
 * A query boolean as the real server converts it: absent is false, and so are `0` and `false`
 * in any case; any other value, `True` and the empty string included, is true.
 */
export function queryBoolean(value: string | null): boolean {
  return value !== null && value !== '0' && value.toLowerCase() !== 'false';
}

function positiveInteger(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) throw badRequest(`${name}: Invalid value: ${JSON.stringify(raw)}: must be a non-negative integer`);
  return Number(raw);
}

/** The Table version the Accept header asks for, honouring the client's order. */
export function tableVersionOf(accept: string | undefined): RequestOptions['table'] {
  for (const part of (accept ?? '').split(',')) {
    const params = part.split(';').map((p) => p.trim());
    if (!params.includes('as=Table') || !params.includes('g=meta.k8s.io')) continue;
    if (params.includes('v=v1')) return 'meta.k8s.io/v1';
    if (params.includes('v=v1beta1')) return 'meta.k8s.io/v1beta1';
  }
  return undefined;
}

export function parseRequestOptions(params: URLSearchParams, accept: string | undefined): RequestOptions {
  const dryRun = params.getAll('dryRun');
  for (const value of dryRun) if (value !== 'All') throw badRequest(`dryRun: Unsupported value: "${value}": supported values: "All"`);
  const fieldValidation = params.get('fieldValidation') ?? 'Warn';
  if (fieldValidation !== 'Strict' && fieldValidation !== 'Warn' && fieldValidation !== 'Ignore') {
    throw badRequest(`fieldValidation: Unsupported value: "${fieldValidation}": supported values: "Ignore", "Strict", "Warn"`);
  }
  const includeObject = params.get('includeObject') ?? 'Metadata';
  if (includeObject !== 'None' && includeObject !== 'Metadata' && includeObject !== 'Object') {
    throw badRequest(`includeObject: Unsupported value: "${includeObject}": supported values: "None", "Metadata", "Object"`);
  }
  const limit = positiveInteger(params, 'limit');
  return {
    dryRun: dryRun.length > 0,
    fieldValidation,
    fieldManager: params.get('fieldManager') ?? undefined,
    force: params.has('force') ? queryBoolean(params.get('force')) : undefined,
    labelSelector: params.get('labelSelector'),
    fieldSelector: params.get('fieldSelector'),
    limit: limit === 0 ? undefined : limit,
    continueToken: params.get('continue') || null,
    resourceVersion: params.get('resourceVersion'),
    watch: queryBoolean(params.get('watch')),
    allowWatchBookmarks: queryBoolean(params.get('allowWatchBookmarks')),
    sendInitialEvents: queryBoolean(params.get('sendInitialEvents')),
    timeoutSeconds: positiveInteger(params, 'timeoutSeconds'),
    includeObject,
    table: tableVersionOf(accept),
  };
}
