// Reading the control-plane emulator's request counters (GET /_emulator/stats): calls per
// deployment by "METHOD route", and the 429s it answered.
export interface StatsSnapshot {
  total: number;
  throttled: number;
  byRoute: Array<{ method: string; route: string; status: number; count: number }>;
}

export interface CallSummary {
  total: number;
  throttled429: number;
  /** "METHOD /route/template" -> calls (every status) divided by the object count. */
  callsPerDeployment: Record<string, number>;
  /** "METHOD /route/template" -> calls (every status). */
  callsByRoute: Record<string, number>;
}

export function summarizeCalls(stats: StatsSnapshot, objects: number): CallSummary {
  const callsByRoute: Record<string, number> = {};
  for (const entry of stats.byRoute) {
    const route = `${entry.method} ${entry.route}`;
    callsByRoute[route] = (callsByRoute[route] ?? 0) + entry.count;
  }
  const callsPerDeployment: Record<string, number> = {};
  for (const [route, count] of Object.entries(callsByRoute)) {
    callsPerDeployment[route] = round(count / Math.max(objects, 1), 4);
  }
  callsPerDeployment.total = round(stats.total / Math.max(objects, 1), 4);
  return { total: stats.total, throttled429: stats.throttled, callsPerDeployment, callsByRoute };
}

export function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
