// The three patch formats the emulator accepts: JSON merge patch (RFC 7386), JSON patch
// (RFC 6902) and an approximation of strategic merge patch for built-in kinds (merge patch
// where lists of objects that share a merge key are merged item by item, plus the
// $patch/$setElementOrder/$retainKeys/$deleteFromPrimitiveList directives kubectl sends).
import { MAX_JSON_DEPTH, nestingProblem } from '../http/json-nesting.js';
import { ApiError, badRequest } from './api-error.js';
import { MAX_BODY_BYTES, nestingError } from './body-limits.js';
import { cloneJson, isJsonObject, jsonEqual, type JsonObject } from './kube-object.js';
import { assertSafePointerSegments } from './prototype-guard.js';

/** The real server's cap on the operations of one JSON patch. */
const MAX_JSON_PATCH_OPERATIONS = 10_000;

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  const result: JsonObject = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

function unprocessable(message: string): ApiError {
  return new ApiError(422, 'Invalid', message);
}

function decodePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw unprocessable(`invalid JSON pointer ${JSON.stringify(pointer)}`);
  const segments = pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  assertSafePointerSegments(segments, pointer);
  return segments;
}

/** Walks to the parent of the pointer's last segment. */
function parentOf(document: unknown, segments: string[], pointer: string): { parent: unknown; last: string } {
  let current = document;
  for (const segment of segments.slice(0, -1)) {
    if (Array.isArray(current)) current = current[Number(segment)];
    else if (isJsonObject(current)) current = current[segment];
    else current = undefined;
    if (current === undefined) throw unprocessable(`doc is missing path: "${pointer}": missing value`);
  }
  return { parent: current, last: segments[segments.length - 1] ?? '' };
}

function getAt(document: unknown, pointer: string): unknown {
  const segments = decodePointer(pointer);
  if (segments.length === 0) return document;
  const { parent, last } = parentOf(document, segments, pointer);
  const value = Array.isArray(parent) ? parent[Number(last)] : isJsonObject(parent) ? parent[last] : undefined;
  if (value === undefined) throw unprocessable(`doc is missing path: "${pointer}": missing value`);
  return value;
}

function arrayIndex(array: unknown[], last: string, allowEnd: boolean, pointer: string): number {
  if (last === '-' && allowEnd) return array.length;
  const index = Number(last);
  if (!/^\d+$/.test(last) || index > array.length || (!allowEnd && index === array.length)) {
    throw unprocessable(`Unable to access invalid index: ${last} (path ${pointer})`);
  }
  return index;
}

function addAt(document: unknown, pointer: string, value: unknown): unknown {
  const segments = decodePointer(pointer);
  if (segments.length === 0) return value;
  const { parent, last } = parentOf(document, segments, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, true, pointer), 0, value);
  else if (isJsonObject(parent)) parent[last] = value;
  else throw unprocessable(`doc is missing path: "${pointer}": missing value`);
  return document;
}

function removeAt(document: unknown, pointer: string): unknown {
  const segments = decodePointer(pointer);
  const { parent, last } = parentOf(document, segments, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, false, pointer), 1);
  else if (isJsonObject(parent) && last in parent) delete parent[last];
  else throw unprocessable(`Unable to remove nonexistent key: ${last}: missing value`);
  return document;
}

/**
 * A value about to be placed at `pointer` must not make the document nest deeper than the
 * limit: each value of a patch is shallow enough, but added one inside another (or copied
 * into itself) they could build any depth, and the next operation would recurse through it.
 */
function checkPlacement(pointer: string, value: unknown): void {
  if (nestingProblem(value, { maxDepth: MAX_JSON_DEPTH - decodePointer(pointer).length }) === 'too-deep') {
    throw nestingError('the object after the patch');
  }
}

/**
 * Applies an RFC 6902 patch to a private copy of the document, within the real server's
 * limits: at most 10,000 operations (413), and copies that add no more than the request size
 * limit in all (422), since each copy can double the document.
 */
export function applyJsonPatch(document: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new ApiError(413, 'RequestEntityTooLarge', `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`);
  }
  let result: unknown = cloneJson(document);
  let copiedBytes = 0;
  for (const operation of patch) {
    if (!isJsonObject(operation)) throw badRequest('json patch operation must be an object');
    const op = operation['op'];
    const path = operation['path'];
    if (typeof path !== 'string') throw unprocessable(`json patch operation ${String(op)} has no path`);
    switch (op) {
      case 'add':
        checkPlacement(path, operation['value']);
        result = addAt(result, path, cloneJson(operation['value']));
        break;
      case 'remove':
        result = removeAt(result, path);
        break;
      case 'replace':
        getAt(result, path);
        checkPlacement(path, operation['value']);
        result = addAt(removeAt(result, path), path, cloneJson(operation['value']));
        break;
      case 'move': {
        const from = String(operation['from']);
        const value = getAt(result, from);
        checkPlacement(path, value);
        result = addAt(removeAt(result, from), path, value);
        break;
      }
      case 'copy': {
        const value = getAt(result, String(operation['from']));
        checkPlacement(path, value);
        copiedBytes += JSON.stringify(value).length;
        if (copiedBytes > MAX_BODY_BYTES) {
          throw unprocessable(`Unable to complete the copy, the accumulated size increase of copy is ${copiedBytes}, exceeding the limit ${MAX_BODY_BYTES}`);
        }
        result = addAt(result, path, cloneJson(value));
        break;
      }
      case 'test':
        if (!jsonEqual(getAt(result, path), operation['value'])) {
          throw unprocessable(`testing value ${path} failed: test failed`);
        }
        break;
      default:
        throw badRequest(`Unexpected kind: ${String(op)}`);
    }
  }
  return result;
}

/** Keys that identify items of a list in strategic merge patch, in the order we try them. */
const MERGE_KEYS = ['name', 'mountPath', 'containerPort', 'devicePath', 'ip', 'type', 'topologyKey'];

function mergeKeyFor(items: unknown[], more: unknown[]): string | undefined {
  const all = [...items, ...more];
  if (all.length === 0 || !all.every(isJsonObject)) return undefined;
  return MERGE_KEYS.find((key) => all.every((item) => (item as JsonObject)[key] !== undefined || (item as JsonObject)['$patch'] !== undefined));
}

function strategicList(original: unknown, patch: unknown[]): unknown[] {
  const base = Array.isArray(original) ? original : [];
  const key = mergeKeyFor(base, patch);
  if (!key) return patch.filter((item) => !(isJsonObject(item) && item['$patch'] !== undefined));
  const result: JsonObject[] = base.map((item) => item as JsonObject);
  for (const item of patch as JsonObject[]) {
    const index = result.findIndex((existing) => jsonEqual(existing[key], item[key]));
    if (item['$patch'] === 'delete') {
      if (index >= 0) result.splice(index, 1);
    } else if (index >= 0) {
      result[index] = applyStrategicMergePatch(result[index], item) as JsonObject;
    } else {
      result.push(applyStrategicMergePatch({}, item) as JsonObject);
    }
  }
  return result;
}

export function applyStrategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  if (patch['$patch'] === 'replace') {
    const { $patch: _ignored, ...rest } = patch;
    return rest;
  }
  if (patch['$patch'] === 'delete') return undefined;
  const result: JsonObject = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys' || key.startsWith('$setElementOrder/')) continue;
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const listName = key.slice('$deleteFromPrimitiveList/'.length);
      const current = result[listName];
      if (Array.isArray(current) && Array.isArray(value)) {
        result[listName] = current.filter((item) => !value.some((v) => jsonEqual(v, item)));
      }
      continue;
    }
    if (value === null) delete result[key];
    else if (Array.isArray(value)) result[key] = strategicList(result[key], value);
    else {
      const merged = applyStrategicMergePatch(result[key], value);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    }
  }
  const retain = patch['$retainKeys'];
  if (Array.isArray(retain)) {
    for (const key of Object.keys(result)) if (!retain.includes(key)) delete result[key];
  }
  return result;
}
