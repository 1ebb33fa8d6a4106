// How a bucket's rate factor (a fraction of the configured rate) climbs back after a 429.
//
// Additive: the factor grows by a fixed step per protected span, AIMD's way back; used when
// the bucket does not know which part of the key it got (it was not spending, or only for a
// moment), so all it knows is that it went too fast.
//
// Plateau: used when the bucket measured its part of the key (its `ceiling`). The factor
// restarts a step below the ceiling and follows a cubic, the curve TCP CUBIC uses for the
// same problem: it climbs quickly at first, flattens as it nears the ceiling, stays close to
// it for spans on end, and only then climbs past it, slowly at first and faster the longer no
// 429 comes. Two installations sharing a key therefore run just under their shares instead
// of crossing them again within a span, as an additive climb from just below would; and when
// the other installation stops, the probe past the ceiling still reaches the whole key.
// Both curves only ever grow between 429s, which the bucket's refill relies on.

export type RecoveryCurve =
  | { kind: 'additive'; base: number; since: number; perSpan: number }
  | { kind: 'plateau'; ceiling: number; since: number; spansToCeiling: number; cubic: number };

export function additiveRecovery(base: number, since: number, perSpan: number): RecoveryCurve {
  return { kind: 'additive', base, since, perSpan };
}

/**
 * Starts at `start` (below `ceiling`) at time `since`, reaches `ceiling` after
 * cbrt((ceiling - start) / cubic) spans and leaves it along cubic * (spans - that)^3.
 */
export function plateauRecovery(start: number, ceiling: number, since: number, cubic: number): RecoveryCurve {
  const spansToCeiling = Math.cbrt(Math.max(0, ceiling - start) / cubic);
  return { kind: 'plateau', ceiling, since, spansToCeiling, cubic };
}

/** The factor `spans` protected spans after the curve started (not capped; the bucket caps at 1). */
export function recoveredFactor(curve: RecoveryCurve, spans: number): number {
  const elapsed = Math.max(0, spans);
  if (curve.kind === 'additive') return curve.base + elapsed * curve.perSpan;
  return curve.ceiling + curve.cubic * (elapsed - curve.spansToCeiling) ** 3;
}
