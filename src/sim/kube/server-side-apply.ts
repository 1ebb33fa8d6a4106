// Server-side apply (PATCH with application/apply-patch+yaml) as the real server does it for
// the fields it tracks (managed-fields.ts): the applied configuration is merged into the live
// object; a field another manager owns with a different value is a 409 conflict unless
// force=true (then the other manager loses it); a field the manager applied before and no
// longer applies is removed, unless another manager owns it too.
import yaml from 'js-yaml';
import { MAX_JSON_DEPTH } from '../http/json-nesting.js';
import { ApiError, badRequest, invalid, type StatusCause } from './api-error.js';
import { checkValueShape, nestingError } from './body-limits.js';
import { cloneJson, isJsonObject, jsonEqual, type JsonObject, type KubeObject } from './kube-object.js';
import {
  changeOwnership,
  entriesOf,
  fromFieldsV1,
  ownedLeaves,
  removeAt,
  valueAt,
  type FieldPath,
  type ManagedFieldsEntry,
} from './managed-fields.js';

export interface ApplyRequest {
  /** The live object, undefined when the apply creates it. */
  current: KubeObject | undefined;
  configuration: KubeObject;
  manager: string;
  force: boolean;
  apiVersion: string;
  time: string;
  statusIsSubresource: boolean;
  /** 'status' for an apply to the status subresource: only `status` is applied and owned. */
  subresource?: 'status';
}

export interface ApplyResult {
  /** The object to write, with its new managedFields. */
  object: KubeObject;
}

/** Keys that would reach an object's prototype when merged into it. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function unsafeKey(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = unsafeKey(item);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isJsonObject(value)) return undefined;
  for (const [key, child] of Object.entries(value)) {
    if (UNSAFE_KEYS.has(key)) return key;
    const found = unsafeKey(child);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The parser recurses once per node and stops itself at maxDepth nodes (100 unless told; not
 * in its type definitions). Every node counts, so a scalar in the deepest collection the
 * emulator accepts is one more.
 */
const YAML_OPTIONS: yaml.LoadOptions & { maxDepth: number } = { maxDepth: MAX_JSON_DEPTH + 1 };

/**
 * Parses an apply body (YAML, of which JSON is a subset) into an object, within the limits of
 * every body: the parser stops at the nesting limit, and what it produced is then checked
 * whole (aliases can make a small document expand without bound).
 */
export function parseApplyBody(raw: Buffer): KubeObject {
  let parsed: unknown;
  try {
    parsed = yaml.load(raw.toString('utf8'), YAML_OPTIONS);
  } catch (error) {
    if (error instanceof yaml.YAMLException && error.reason.startsWith('nesting exceeded maxDepth')) {
      throw nestingError('the request body');
    }
    throw badRequest(
      `error decoding YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    );
  }
  checkValueShape(parsed, 'the request body');
  if (!isJsonObject(parsed)) throw badRequest('the body of an apply request must be an object');
  const unsafe = unsafeKey(parsed);
  if (unsafe !== undefined) throw badRequest(`error decoding YAML: the key "${unsafe}" is not allowed`);
  const metadata = parsed['metadata'] ?? {};
  if (!isJsonObject(metadata)) throw badRequest('metadata: must be an object');
  return { ...parsed, metadata } as KubeObject;
}

/** The PatchOptions checks of an apply: a field manager is required. */
export function checkApplyOptions(fieldManager: string | undefined): string {
  if (fieldManager === undefined || fieldManager === '') {
    throw invalid('meta.k8s.io', 'PatchOptions', '', [
      {
        reason: 'FieldValueRequired',
        field: 'fieldManager',
        message: 'Required value: is required for apply patch',
      },
    ]);
  }
  return fieldManager;
}

function dotted(path: FieldPath): string {
  return `.${path.join('.')}`;
}

function conflictError(conflicts: Array<{ entry: ManagedFieldsEntry; path: FieldPath }>): ApiError {
  const byManager = new Map<string, string[]>();
  for (const { entry, path } of conflicts) {
    const who = `"${entry.manager}" using ${entry.apiVersion}`;
    byManager.set(who, [...(byManager.get(who) ?? []), dotted(path)]);
  }
  const parts = [...byManager].map(([who, paths]) =>
    paths.length === 1
      ? `conflict with ${who}: ${paths[0] ?? ''}`
      : `conflicts with ${who}:\n${paths.map((p) => `- ${p}`).join('\n')}`,
  );
  const count = conflicts.length;
  const causes: StatusCause[] = conflicts.map(({ entry, path }) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with "${entry.manager}" using ${entry.apiVersion}`,
    field: dotted(path),
  }));
  return new ApiError(
    409,
    'Conflict',
    `Apply failed with ${count} conflict${count === 1 ? '' : 's'}: ${parts.join('\n')}`,
    { causes },
  );
}

function mergeInto(target: JsonObject, configuration: JsonObject): void {
  for (const [name, value] of Object.entries(configuration)) {
    const existing = target[name];
    if (isJsonObject(value) && isJsonObject(existing)) mergeInto(existing, value);
    else target[name] = cloneJson(value);
  }
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * The real server's upgrade path from client-side to server-side apply: `kubectl apply
 * --server-side` (manager "kubectl") may take the fields that the object's last-applied
 * annotation lists, so the first server-side apply of a client-side-applied object works.
 */
function takesOverClientSideApply(request: ApplyRequest, conflicts: Array<{ path: FieldPath }>): boolean {
  if (request.manager !== 'kubectl') return false;
  const annotation = request.current?.metadata.annotations?.[LAST_APPLIED];
  if (annotation === undefined) return false;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(annotation);
  } catch {
    return false;
  }
  if (!isJsonObject(lastApplied)) return false;
  const allowed = ownedLeaves(lastApplied, 'main', request.statusIsSubresource);
  return conflicts.every(({ path }) => allowed.has(JSON.stringify(path)));
}

export function serverSideApply(request: ApplyRequest): ApplyResult {
  const { current, configuration } = request;
  const applied = ownedLeaves(configuration, request.subresource ?? 'main', request.statusIsSubresource);
  const entries = entriesOf(current);
  const conflicts: Array<{ entry: ManagedFieldsEntry; path: FieldPath }> = [];
  const previouslyApplied = new Map<string, FieldPath>();
  const ownedByOthers = new Set<string>();
  for (const entry of entries) {
    const paths = fromFieldsV1(entry.fieldsV1);
    if (
      entry.manager === request.manager &&
      entry.operation === 'Apply' &&
      entry.subresource === request.subresource
    ) {
      for (const [key, path] of paths) previouslyApplied.set(key, path);
      continue;
    }
    for (const [key, path] of paths) {
      ownedByOthers.add(key);
      if (applied.has(key) && !jsonEqual(valueAt(current, path), valueAt(configuration, path)))
        conflicts.push({ entry, path });
    }
  }
  if (conflicts.length > 0 && !request.force && !takesOverClientSideApply(request, conflicts))
    throw conflictError(conflicts);

  const object: KubeObject = current ? cloneJson(current) : { metadata: {} };
  for (const [key, path] of previouslyApplied) {
    if (!applied.has(key) && !ownedByOthers.has(key)) removeAt(object, path);
  }
  const { metadata, ...rest } = configuration;
  if (request.subresource === 'status') {
    if (isJsonObject(rest['status'])) mergeInto(object, { status: rest['status'] });
  } else {
    mergeInto(object, rest);
  }
  for (const field of [
    'labels',
    'annotations',
    'finalizers',
    'ownerReferences',
    'name',
    'namespace',
    'generateName',
  ]) {
    if (metadata[field] === undefined || request.subresource === 'status') continue;
    const live = object.metadata[field];
    if (isJsonObject(live) && isJsonObject(metadata[field])) mergeInto(live, metadata[field] as JsonObject);
    else object.metadata[field] = cloneJson(metadata[field]);
  }
  const removed = [...previouslyApplied.keys()].filter((key) => !applied.has(key) && !ownedByOthers.has(key));
  object.metadata.managedFields = changeOwnership(entries, {
    manager: request.manager,
    operation: 'Apply',
    apiVersion: request.apiVersion,
    time: request.time,
    ...(request.subresource ? { subresource: request.subresource } : {}),
    fields: applied,
    removed,
    takenFrom: conflicts.map(({ path }) => JSON.stringify(path)),
  });
  return { object };
}
