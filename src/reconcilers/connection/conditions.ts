// The connection's two conditions, Ready and Reachable. As for every condition the operator
// writes, lastTransitionTime moves only when the status flips, so rewriting the same
// condition is a no-op and publishes nothing.
import type { ConnectionCondition, ConnectionConditionType } from '../../api/connection/index.js';

export interface ConnectionConditionUpdate {
  type: ConnectionConditionType;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

export function withConditions(
  previous: readonly ConnectionCondition[] | undefined,
  updates: readonly ConnectionConditionUpdate[],
  generation: number,
  now: Date,
): ConnectionCondition[] {
  const result = [...(previous ?? [])];
  for (const update of updates) {
    const index = result.findIndex((condition) => condition.type === update.type);
    const existing = index >= 0 ? result[index] : undefined;
    const next: ConnectionCondition = {
      ...update,
      observedGeneration: generation,
      lastTransitionTime:
        existing !== undefined && existing.status === update.status
          ? existing.lastTransitionTime
          : now.toISOString(),
    };
    if (index >= 0) result[index] = next;
    else result.push(next);
  }
  return result.sort((a, b) => (a.type === b.type ? 0 : a.type === 'Ready' ? -1 : 1));
}
