// User JSON reaches plain JS objects here: request bodies are parsed, merged key by key and
// walked by JSON Patch pointers. A `__proto__` key or segment would then reach
// Object.prototype (and `constructor`/`prototype` walk to it), polluting every object of
// the process, which in `npm start` hosts the operator too. The real API server has no such
// hazard; the emulator refuses these names with a 400 wherever user JSON names a key.
import { badRequest } from './api-error.js';

const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

function refuse(key: string, where: string): never {
  throw badRequest(
    `${where}: the key "${key}" is not accepted by this emulator (__proto__, constructor and prototype could reach Object.prototype)`,
  );
}

/** Throws a 400 when any object in `value`, at any depth, has a forbidden key. */
export function assertNoPrototypeKeys(value: unknown, where = 'request body'): void {
  const pending: { value: unknown; path: string }[] = [{ value, path: '' }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const current = item.value;
    if (Array.isArray(current)) {
      current.forEach((element, index) => pending.push({ value: element, path: `${item.path}[${index}]` }));
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, child] of Object.entries(current)) {
        const path = item.path === '' ? key : `${item.path}.${key}`;
        if (FORBIDDEN_KEYS.has(key)) refuse(key, `${where} at ${path}`);
        pending.push({ value: child, path });
      }
    }
  }
}

/** Throws a 400 when a JSON Pointer segment (already unescaped) is a forbidden key. */
export function assertSafePointerSegments(segments: readonly string[], pointer: string): void {
  for (const segment of segments) {
    if (FORBIDDEN_KEYS.has(segment)) refuse(segment, `JSON patch path ${JSON.stringify(pointer)}`);
  }
}
