// When each AgentDeployment of a convergence passed each stage of its creation, as a watch
// sees its writes: the operator's finalizer, the create intent in status, the deployment id
// in status, Ready. Printed as counts over time, it shows where a convergence loses its
// seconds (objects waiting for their first look, creates held back by the budget, rollouts
// waiting to be observed) without a profile.
import { isReady, type AgentDeploymentObject } from './agent-deployments.js';

export const CREATION_STAGES = ['finalizer', 'intent', 'created', 'ready'] as const;
export type CreationStage = (typeof CREATION_STAGES)[number];

interface Ownership {
  createRequestedAt?: string;
  deploymentId?: string;
}

export class CreationStages {
  /** name -> stage -> ms after the origin at which the watch first showed it. */
  private readonly reached = new Map<string, Partial<Record<CreationStage, number>>>();

  record(object: AgentDeploymentObject, atMs: number): void {
    const name = object.metadata.name ?? '';
    let stages = this.reached.get(name);
    if (stages === undefined) {
      stages = {};
      this.reached.set(name, stages);
    }
    const ownership = (object.status as { ownership?: Ownership } | undefined)?.ownership;
    const shown: Record<CreationStage, boolean> = {
      finalizer: (object.metadata.finalizers ?? []).length > 0,
      intent: ownership?.createRequestedAt !== undefined,
      created: ownership?.deploymentId !== undefined,
      ready: isReady(object),
    };
    for (const stage of CREATION_STAGES) if (shown[stage]) stages[stage] ??= atMs;
  }

  /** One line per `stepMs` until every one of `n` objects is Ready: how many had reached each stage. */
  table(n: number, stepMs = 500): string[] {
    const times = CREATION_STAGES.map((stage) =>
      [...this.reached.values()].map((stages) => stages[stage] ?? Number.POSITIVE_INFINITY),
    );
    const lines = [`${'s'.padStart(6)} ${CREATION_STAGES.map((stage) => stage.padStart(9)).join(' ')}`];
    for (let at = stepMs; ; at += stepMs) {
      const counts = times.map((stageTimes) => stageTimes.filter((time) => time <= at).length);
      lines.push(
        `${(at / 1000).toFixed(1).padStart(6)} ${counts.map((count) => String(count).padStart(9)).join(' ')}`,
      );
      if ((counts[counts.length - 1] ?? 0) >= n || at > 3_600_000) return [...lines, this.tail()];
    }
  }

  /**
   * The rollout's tail: when the last deployment id was recorded and when the last object was
   * Ready. The floor has the last object Ready one build after the last create; the rest of
   * the gap is the wait for the deployment to be seen built and for its Ready status.
   */
  private tail(): string {
    const last = (stage: CreationStage) =>
      Math.max(...[...this.reached.values()].map((stages) => stages[stage] ?? Number.NEGATIVE_INFINITY));
    const created = last('created');
    const ready = last('ready');
    return `last id recorded at ${(created / 1000).toFixed(2)} s, last Ready at ${(ready / 1000).toFixed(2)} s: ${((ready - created) / 1000).toFixed(2)} s after`;
  }
}
