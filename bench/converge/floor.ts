// The physical limit of convergence under a rate limit (docs/benchmarks.md, "The floor").
// Strictly needed calls: one POST per deployment (nothing else creates it) plus one final
// observation round, which sees at most 100 deployments per list call (the API's page
// limit), so ceil(N/100) lists. Everything else (more polling rounds, revision GETs,
// lookups) is a choice, not a necessity. The build cannot start before the POST and the
// last POST cannot happen before `calls / rate` seconds, so the last object is Ready no
// sooner than calls / rate + build time.
export const IDS_PER_LIST = 100;

export interface FloorInput {
  n: number;
  /** Sustained calls per second the key allows (1000 per 10 s = 100). */
  allowedPerSecond: number;
  /** Time from POST to DEPLOYED on the control plane. */
  buildMs: number;
}

export function strictlyNeededCalls(n: number): number {
  return n + Math.ceil(n / IDS_PER_LIST);
}

export function floorSeconds({ n, allowedPerSecond, buildMs }: FloorInput): number {
  return strictlyNeededCalls(n) / allowedPerSecond + buildMs / 1000;
}

/**
 * Ready objects over time at the floor: object k (1-based) can be posted at k / rate at the
 * earliest and is deployed one build time later; the last one is seen at floorSeconds.
 */
export function floorReadyAt(input: FloorInput, seconds: number): number {
  const ready = Math.floor((seconds - input.buildMs / 1000) * input.allowedPerSecond);
  if (seconds >= floorSeconds(input)) return input.n;
  return Math.max(0, Math.min(input.n - 1, ready));
}
