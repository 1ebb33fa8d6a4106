// What one round of no-op reconciles measured (a touch round or a replayed one), with the
// operator's garbage collections during it: a full collection of the heap (tens of MB at
// 5,000 objects) lands in some rounds and not others, and moves a round's rate by a third.
import { round } from '../support/emulator-stats.js';
import type { GcTotals } from '../support/operator-process.js';

export interface RoundFigures {
  reconciles: number;
  cpuSeconds: number;
  wallSeconds: number;
  perCpuSecond: number;
  perSecond: number;
  /** Seconds the operator's main thread paused for garbage collection during the round. */
  gcPauseSeconds: number;
  /** Full (major) collections during the round. */
  majorGcs: number;
}

export function roundFigures(
  reconciles: number,
  cpuSeconds: number,
  wallSeconds: number,
  gcBefore: GcTotals,
  gcAfter: GcTotals,
): RoundFigures {
  return {
    reconciles,
    cpuSeconds: round(cpuSeconds, 2),
    wallSeconds: round(wallSeconds, 2),
    perCpuSecond: Math.round(reconciles / cpuSeconds),
    perSecond: Math.round(reconciles / wallSeconds),
    gcPauseSeconds: round(gcAfter.pauseSeconds - gcBefore.pauseSeconds, 3),
    majorGcs: gcAfter.majorCount - gcBefore.majorCount,
  };
}

/** All the rounds' passes over all their CPU seconds: a full collection counts where it fell. */
export function overallPerCpuSecond(rounds: readonly RoundFigures[]): number | null {
  const cpuSeconds = rounds.reduce((sum, r) => sum + r.cpuSeconds, 0);
  if (cpuSeconds === 0) return null;
  return Math.round(rounds.reduce((sum, r) => sum + r.reconciles, 0) / cpuSeconds);
}

export function describeRound(label: string, r: RoundFigures): string {
  return `${label}: ${r.reconciles} reconciles, ${r.cpuSeconds} CPU s, ${r.wallSeconds} s -> ${r.perCpuSecond}/CPU-s, ${r.perSecond}/s; GC pauses ${r.gcPauseSeconds} s, ${r.majorGcs} full`;
}
