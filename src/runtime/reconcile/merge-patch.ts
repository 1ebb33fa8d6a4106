// The RFC 7386 merge patch that turns `previous` into `next`: changed values as they are,
// removed keys as null (a merge patch cannot remove a key any other way). Arrays are values:
// a merge patch replaces them whole, which is what conditions need.

type Json = Record<string, unknown>;

function isPlainObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function mergePatchBetween(previous: Json | undefined, next: Json): Json {
  const patch: Json = {};
  for (const [key, value] of Object.entries(next)) {
    const before = previous?.[key];
    if (isPlainObject(value) && isPlainObject(before)) {
      const nested = mergePatchBetween(before, value);
      if (Object.keys(nested).length > 0) patch[key] = nested;
    } else if (JSON.stringify(value) !== JSON.stringify(before)) {
      patch[key] = value;
    }
  }
  for (const key of Object.keys(previous ?? {})) {
    if (!(key in next)) patch[key] = null;
  }
  return patch;
}
