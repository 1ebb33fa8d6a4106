// Equality of JSON documents as an API server sees them: a field that is null, absent or
// undefined means "not set", on both sides and at every depth, and key order means nothing.
// Without this, the control plane echoing `"subPath": null` for a mount the user wrote without
// one would look like drift forever, and a status rebuilt with its keys in another order would
// be written again every pass.

export function isUnset(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

export function equalIgnoringUnset(a: unknown, b: unknown): boolean {
  if (isUnset(a) || isUnset(b)) return isUnset(a) && isUnset(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => equalIgnoringUnset(item, b[index]));
  }
  if (typeof a === 'object' && typeof b === 'object') {
    const left = a as Record<string, unknown>;
    const right = b as Record<string, unknown>;
    const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
    for (const key of keys) {
      if (!equalIgnoringUnset(left[key], right[key])) return false;
    }
    return true;
  }
  return a === b;
}
