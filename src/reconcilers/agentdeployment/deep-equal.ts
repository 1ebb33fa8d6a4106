// Equality as the control plane sees it: a field that is null, absent or undefined means
// "not set", on both sides and at every depth. Without this, the server echoing
// `"subPath": null` for a mount the user wrote without one would look like drift forever.

export function isUnset(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

export function equalIgnoringUnset(a: unknown, b: unknown): boolean {
  // The same object is equal to itself: a status built from the previous one shares most of
  // its parts, and this is called on every pass (status.ts statusChanged, diff.ts).
  if (a === b) return true;
  if (isUnset(a) || isUnset(b)) return isUnset(a) && isUnset(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => equalIgnoringUnset(item, b[index]));
  }
  if (typeof a === 'object' && typeof b === 'object') {
    const left = a as Record<string, unknown>;
    const right = b as Record<string, unknown>;
    for (const key in left) {
      if (!equalIgnoringUnset(left[key], right[key])) return false;
    }
    // Keys only the right side has: equal only where unset there.
    for (const key in right) {
      if (!(key in left) && !isUnset(right[key])) return false;
    }
    return true;
  }
  return false;
}
