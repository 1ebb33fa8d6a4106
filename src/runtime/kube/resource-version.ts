// Ordering two resourceVersions of one resource. Clients long had only equality; Kubernetes 1.35
// made the order part of the API (KEP-5504, "Comparable Resource Version", stable): a
// resourceVersion is a positive decimal integer without leading zeros, and a larger one is a
// later write. Anything else (an API server that predates the rule, an aggregated API with
// opaque versions) cannot be ordered, and the caller falls back to equality.

const COMPARABLE = /^[1-9][0-9]*$/;

/** -1, 0 or 1 as `a` is older than, the same as or newer than `b`; undefined when either is not comparable. */
export function compareResourceVersions(a: string, b: string): -1 | 0 | 1 | undefined {
  if (!COMPARABLE.test(a) || !COMPARABLE.test(b)) return undefined;
  // No leading zeros: the longer number is the larger, and equal lengths order as text.
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}
