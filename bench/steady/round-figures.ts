// What one round of no-op reconciles measured (a touch round or a replayed one), with the
// operator's garbage collections during it: a full collection of the heap (tens of MB at
// 5,000 objects) lands in some rounds and not others, and moves a round's rate by a third.
import { setTimeout as sleep } from 'node:timers/promises';
import { round } from '../support/emulator-stats.js';
import type { GcTotals, OperatorProcess } from '../support/operator-process.js';

export const RECONCILES = 'controller_runtime_reconcile_total';

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

/**
 * Measures one round: `drive` makes the operator reconcile `n` objects (touches them, or
 * replays their events); done when `n` more passes are counted (polled from /metrics, one
 * counter only, as cheap for the operator as a scrape can be).
 */
export async function measureRound(
  operator: OperatorProcess,
  n: number,
  drive: () => Promise<void>,
): Promise<RoundFigures> {
  const before = await operator.metric(RECONCILES);
  const gcBefore = await operator.gcTotals();
  const cpuBefore = operator.cpuSeconds();
  const start = performance.now();
  await drive();
  let count = before;
  while (count < before + n) {
    await sleep(100);
    count = await operator.metric(RECONCILES);
  }
  const wallSeconds = (performance.now() - start) / 1000;
  const cpuSeconds = operator.cpuSeconds() - cpuBefore;
  return roundFigures(count - before, cpuSeconds, wallSeconds, gcBefore, await operator.gcTotals());
}

function roundFigures(
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
