// Where `spec.adoptExisting` (or a deployment-id hint) may take over an existing deployment
// that no object manages. All tenants of one operator share one workspace, so adoption is a
// way into deployments made outside this operator (by hand, by CI, by another release): the
// platform team chooses the namespaces trusted with it (`--adoption-namespaces`).

/** The rule that forbids adoption in `namespace`, in words for the object's status; undefined when permitted. */
export type AdoptionPolicy = (namespace: string) => string | undefined;

/** `permitted` undefined: every watched namespace; empty: none. */
export function adoptionPolicy(permitted: readonly string[] | undefined): AdoptionPolicy {
  if (permitted === undefined) return () => undefined;
  const allowed = new Set(permitted);
  const rule =
    permitted.length === 0
      ? 'adoption is turned off (the operator runs with an empty --adoption-namespaces)'
      : `adoption is permitted only from the namespaces ${permitted.join(', ')} (the operator's --adoption-namespaces)`;
  return (namespace) => (allowed.has(namespace) ? undefined : rule);
}
