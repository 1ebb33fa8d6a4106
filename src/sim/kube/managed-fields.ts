// Field ownership (metadata.managedFields) as the real server keeps it for server-side
// apply: each manager owns the leaf fields it applied (operation Apply) or last changed
// (operation Update). Maps are walked field by field; lists and scalars are leaves, which is
// what a CRD list without x-kubernetes-list-type is (atomic). Merge-keyed lists of built-in
// kinds are treated as atomic too (docs/kube-emulator.md says so).
import { isJsonObject, jsonEqual, nowTimestamp, type JsonObject, type KubeObject } from './kube-object.js';

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: JsonObject;
  subresource?: string;
}

export type FieldPath = readonly string[];

/** The metadata fields a manager can own; the rest belong to the server. */
const OWNABLE_METADATA = new Set(['labels', 'annotations', 'finalizers', 'ownerReferences']);

function pathKey(path: FieldPath): string {
  return JSON.stringify(path);
}

function collectLeaves(value: unknown, prefix: string[], into: Map<string, FieldPath>): void {
  if (isJsonObject(value) && Object.keys(value).length > 0) {
    for (const [name, child] of Object.entries(value)) {
      if (child !== undefined) collectLeaves(child, [...prefix, name], into);
    }
    return;
  }
  if (prefix.length > 0) into.set(pathKey(prefix), prefix);
}

/**
 * The leaf fields `object` sets, keyed by their JSON-encoded path. `scope` 'main' leaves out
 * `status` when it is a subresource; 'status' keeps only `status`.
 */
export function ownedLeaves(
  object: JsonObject,
  scope: 'main' | 'status',
  statusIsSubresource: boolean,
): Map<string, FieldPath> {
  const leaves = new Map<string, FieldPath>();
  for (const [name, value] of Object.entries(object)) {
    if (name === 'apiVersion' || name === 'kind' || value === undefined) continue;
    if (scope === 'status' ? name !== 'status' : name === 'status' && statusIsSubresource) continue;
    if (name === 'metadata' && isJsonObject(value)) {
      for (const [field, child] of Object.entries(value)) {
        if (OWNABLE_METADATA.has(field) && child !== undefined)
          collectLeaves(child, ['metadata', field], leaves);
      }
      continue;
    }
    collectLeaves(value, [name], leaves);
  }
  return leaves;
}

export function valueAt(object: unknown, path: FieldPath): unknown {
  let node: unknown = object;
  for (const name of path) {
    if (!isJsonObject(node)) return undefined;
    node = node[name];
  }
  return node;
}

/** Removes the field at `path` (in place), and the maps it leaves empty. */
export function removeAt(object: JsonObject, path: FieldPath): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (rest.length === 0) {
    delete object[head];
    return;
  }
  const child = object[head];
  if (!isJsonObject(child)) return;
  removeAt(child, rest);
  if (Object.keys(child).length === 0 && head !== 'metadata') delete object[head];
}

export function toFieldsV1(paths: Iterable<FieldPath>): JsonObject {
  const root: JsonObject = {};
  for (const path of paths) {
    let node = root;
    for (const name of path) {
      const key = `f:${name}`;
      const next = node[key];
      node[key] = isJsonObject(next) ? next : {};
      node = node[key] as JsonObject;
    }
  }
  return root;
}

/**
 * Parsed field sets by their FieldsV1 object. Stored objects are never mutated (every write
 * stores a new tree) and an entry nobody's write touched keeps its FieldsV1 object, so each set
 * is parsed once rather than at every write to the object (a status write parsed them all).
 */
const parsedFieldSets = new WeakMap<JsonObject, ReadonlyMap<string, FieldPath>>();

export function fromFieldsV1(fields: JsonObject): ReadonlyMap<string, FieldPath> {
  const cached = parsedFieldSets.get(fields);
  if (cached !== undefined) return cached;
  const paths = new Map<string, FieldPath>();
  const walk = (node: JsonObject, prefix: string[]): void => {
    const children = Object.keys(node).filter((key) => key.startsWith('f:'));
    if (children.length === 0 && prefix.length > 0) paths.set(pathKey(prefix), prefix);
    for (const key of children) {
      const child = node[key];
      walk(isJsonObject(child) ? child : {}, [...prefix, key.slice(2)]);
    }
  };
  walk(fields, []);
  parsedFieldSets.set(fields, paths);
  return paths;
}

export function isManagedFieldsEntry(value: unknown): value is ManagedFieldsEntry {
  return (
    isJsonObject(value) &&
    typeof value['manager'] === 'string' &&
    (value['operation'] === 'Apply' || value['operation'] === 'Update') &&
    isJsonObject(value['fieldsV1'])
  );
}

/**
 * An entry a client sent, in the server's own form: `time` is a metav1.Time, which the real
 * server parses and writes back in UTC with whole seconds (`...Z`). The official Python client
 * sends the same instant as `+00:00`; read as text, that would look like a change and move
 * resourceVersion on a PUT that changes nothing. A time that does not parse is left as sent.
 */
export function normalizeManagedFieldsEntry(entry: ManagedFieldsEntry): ManagedFieldsEntry {
  // Typed as a string, but it came from a client: check.
  const time: unknown = entry.time;
  if (typeof time !== 'string') return entry;
  const ms = Date.parse(time);
  if (!Number.isFinite(ms)) return entry;
  return { ...entry, time: nowTimestamp(() => ms) };
}

export function entriesOf(object: KubeObject | undefined): ManagedFieldsEntry[] {
  const raw = object?.metadata.managedFields;
  return Array.isArray(raw) ? (raw as ManagedFieldsEntry[]) : [];
}

function sameOwner(
  entry: ManagedFieldsEntry,
  manager: string,
  operation: 'Apply' | 'Update',
  subresource: string | undefined,
): boolean {
  return entry.manager === manager && entry.operation === operation && entry.subresource === subresource;
}

export interface OwnershipChange {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  subresource?: string;
  /** The manager's whole set after the change (Apply), or the fields it just changed (Update). */
  fields: Map<string, FieldPath>;
  /** Fields that no longer exist in the object: nobody owns them any more. */
  removed: Iterable<string>;
  /** Fields the other managers lose (changed by this write, or taken over with force). */
  takenFrom: Iterable<string>;
}

/** The managed fields after one write; an entry whose set did not change keeps its time. */
export function changeOwnership(
  entries: readonly ManagedFieldsEntry[],
  change: OwnershipChange,
): ManagedFieldsEntry[] {
  const lost = new Set([...change.removed, ...change.takenFrom]);
  const result: ManagedFieldsEntry[] = [];
  let ownBefore: ManagedFieldsEntry | undefined;
  for (const entry of entries) {
    if (sameOwner(entry, change.manager, change.operation, change.subresource)) {
      ownBefore = entry;
      continue;
    }
    const paths = fromFieldsV1(entry.fieldsV1);
    const kept = withoutKeys(paths, lost);
    if (kept.size === 0) continue;
    // Another manager's entry this write took nothing from stays as it was, object and all.
    result.push(kept === paths ? entry : { ...entry, fieldsV1: toFieldsV1(kept.values()) });
  }
  const before = ownBefore === undefined ? undefined : fromFieldsV1(ownBefore.fieldsV1);
  // An apply states the manager's whole set; an update adds what it changed to what it had.
  const mine = new Map<string, FieldPath>(change.operation === 'Apply' || before === undefined ? [] : before);
  for (const key of change.removed) mine.delete(key);
  for (const [key, path] of change.fields) mine.set(key, path);
  if (mine.size > 0) {
    const unchanged = ownBefore !== undefined && before !== undefined && sameKeys(before, mine);
    result.push(
      unchanged && ownBefore
        ? ownBefore
        : {
            manager: change.manager,
            operation: change.operation,
            apiVersion: change.apiVersion,
            time: change.time,
            fieldsType: 'FieldsV1',
            fieldsV1: toFieldsV1(mine.values()),
            ...(change.subresource ? { subresource: change.subresource } : {}),
          },
    );
  }
  return result;
}

/** `paths` itself when it holds none of `keys`, else a copy without them. */
function withoutKeys(paths: ReadonlyMap<string, FieldPath>, keys: ReadonlySet<string>): ReadonlyMap<string, FieldPath> {
  let kept: Map<string, FieldPath> | undefined;
  for (const key of keys) {
    if (!paths.has(key)) continue;
    kept ??= new Map(paths);
    kept.delete(key);
  }
  return kept ?? paths;
}

function sameKeys(a: ReadonlyMap<string, FieldPath>, b: ReadonlyMap<string, FieldPath>): boolean {
  if (a.size !== b.size) return false;
  for (const key of a.keys()) if (!b.has(key)) return false;
  return true;
}

/**
 * Ownership after an ordinary write (create, update, non-apply patch) by `manager`: it takes
 * the fields whose value it changed; fields that are gone are owned by nobody.
 */
export function trackUpdate(
  before: KubeObject | undefined,
  after: KubeObject,
  options: {
    manager: string;
    apiVersion: string;
    time: string;
    subresource?: 'status';
    statusIsSubresource: boolean;
  },
): ManagedFieldsEntry[] {
  const scope = options.subresource === 'status' ? 'status' : 'main';
  const old = before ? ownedLeaves(before, scope, options.statusIsSubresource) : new Map<string, FieldPath>();
  const next = ownedLeaves(after, scope, options.statusIsSubresource);
  const changed = new Map<string, FieldPath>();
  for (const [key, path] of next)
    if (!jsonEqual(valueAt(before, path), valueAt(after, path))) changed.set(key, path);
  const removed = [...old.keys()].filter((key) => !next.has(key));
  const entries = entriesOf(before);
  if (changed.size === 0 && removed.length === 0) return entries;
  return changeOwnership(entries, {
    manager: options.manager,
    operation: 'Update',
    apiVersion: options.apiVersion,
    time: options.time,
    ...(options.subresource ? { subresource: options.subresource } : {}),
    fields: changed,
    removed,
    takenFrom: changed.keys(),
  });
}

/** Drops owned paths the object does not have (pruned unknown fields, say) and empty entries. */
export function limitToObject(
  entries: readonly ManagedFieldsEntry[],
  object: KubeObject,
): ManagedFieldsEntry[] {
  const result: ManagedFieldsEntry[] = [];
  for (const entry of entries) {
    const paths = fromFieldsV1(entry.fieldsV1);
    const present = [...paths.values()].filter((path) => valueAt(object, path) !== undefined);
    if (present.length === 0) continue;
    result.push(present.length === paths.size ? entry : { ...entry, fieldsV1: toFieldsV1(present) });
  }
  return result;
}

/** The manager name the server derives from a User-Agent when no fieldManager is sent. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const name = (userAgent ?? '').split('/')[0]?.trim() ?? '';
  return name === '' ? 'unknown' : name.slice(0, 128);
}
