// GET of one object and of a collection (with selectors, pagination and the Table form).
import { badRequest } from '../api-error.js';
import type { ApiContext } from '../api-context.js';
import type { KubeObject } from '../kube-object.js';
import type { RequestOptions } from '../request-options.js';
import { apiVersionOf, type ResourceType } from '../resource-type.js';
import { combinePredicates, parseFieldSelector, parseLabelSelector, type ObjectPredicate } from '../selectors.js';
import { TableBuilder } from '../table.js';

interface ContinueToken {
  /** The list's resourceVersion, kept for every page like the real server does. */
  rv: string;
  /** The last key returned; the next page starts after it. */
  start: string;
}

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

function decodeContinue(text: string): ContinueToken {
  try {
    const token = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<ContinueToken>;
    if (typeof token.rv === 'string' && typeof token.start === 'string') return { rv: token.rv, start: token.start };
  } catch {
    // fall through to the error below
  }
  throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}

export function selectionPredicate(type: ResourceType, options: RequestOptions, name?: string): ObjectPredicate | undefined {
  const byName: ObjectPredicate | undefined = name === undefined ? undefined : (o) => o.metadata.name === name;
  return combinePredicates(
    parseLabelSelector(options.labelSelector),
    parseFieldSelector(options.fieldSelector, type.extraFieldLabels),
    byName,
  );
}

export function getObject(ctx: ApiContext, type: ResourceType, version: string, namespace: string | undefined, name: string, options: RequestOptions): unknown {
  const object = ctx.toServed(type, version, ctx.requireStored(type, namespace, name));
  if (!options.table) return object;
  const table = new TableBuilder(type, version).table([object], options.includeObject, { resourceVersion: object.metadata.resourceVersion });
  table['apiVersion'] = options.table;
  return table;
}

export function listObjects(ctx: ApiContext, type: ResourceType, version: string, namespace: string | undefined, options: RequestOptions): unknown {
  const predicate = selectionPredicate(type, options);
  const store = ctx.resourceStore(type);
  const keys = type.namespaced && namespace ? store.keys(namespace) : store.keys();
  const token = options.continueToken ? decodeContinue(options.continueToken) : undefined;
  const listRv = token?.rv ?? String(ctx.store.currentRevision);
  let index = 0;
  if (token) {
    // Binary search for the first key after the token's start key.
    let low = 0;
    let high = keys.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((keys[middle] ?? '') <= token.start) low = middle + 1;
      else high = middle;
    }
    index = low;
  }
  const items: KubeObject[] = [];
  let lastKey: string | undefined;
  for (; index < keys.length; index += 1) {
    if (options.limit !== undefined && items.length >= options.limit) break;
    const key = keys[index] ?? '';
    const stored = store.get(key);
    lastKey = key;
    if (!stored) continue;
    const served = ctx.toServed(type, version, stored);
    if (!predicate || predicate(served)) items.push(served);
  }
  const metadata: Record<string, unknown> = { resourceVersion: listRv };
  if (index < keys.length && lastKey !== undefined) {
    metadata['continue'] = encodeContinue({ rv: listRv, start: lastKey });
    if (!predicate) metadata['remainingItemCount'] = keys.length - index;
  }
  if (options.table) {
    const table = new TableBuilder(type, version).table(items, options.includeObject, metadata);
    table['apiVersion'] = options.table;
    return table;
  }
  return { kind: type.listKind, apiVersion: apiVersionOf(type.group, version), metadata, items };
}
