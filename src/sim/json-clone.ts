// A deep copy of a JSON value (what a request body or a stored object is: plain objects,
// arrays, strings, numbers, booleans, null). structuredClone does the same for any value,
// through V8's serializer: about six times the CPU for a 4 KB AgentDeployment, and the
// Kubernetes emulator copies the object of every write. Depth is bounded before any value
// gets here (json-nesting.ts), so the recursion is too.
export function cloneJsonValue<T>(value: T): T {
  return copy(value) as T;
}

function copy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const items = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i += 1) items[i] = copy(value[i]);
    return items;
  }
  const record = value as Record<string, unknown>;
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const item = copy(record[key]);
    // A "__proto__" key (JSON.parse makes it an own property) stays a property, not a prototype.
    if (key === '__proto__')
      Object.defineProperty(result, key, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else result[key] = item;
  }
  return result;
}
