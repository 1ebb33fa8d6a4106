// What the temp-folder check (temp-dir-guard.ts) found, handed to the summary reporter.
// Vitest loads global setups and reporters as separate module instances in the same main
// process, so the hand-over goes through one process-wide slot rather than a module variable.
const SLOT = Symbol.for('agent-operator.tests.temp-leftovers');

interface Slots {
  [SLOT]?: readonly string[];
}

export function recordTempLeftovers(names: readonly string[]): void {
  (globalThis as Slots)[SLOT] = names;
}

/** The entries the run left behind, or undefined when the check has not run (no guard configured). */
export function tempLeftovers(): readonly string[] | undefined {
  return (globalThis as Slots)[SLOT];
}
