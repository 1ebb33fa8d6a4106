// The last observation of each tracked deployment, with its age. Written by the fleet
// poller (batched lists) and by the reconciler (responses of its own calls), read by the
// reconciler so that a reconcile usually costs no control-plane call at all.
import type { Deployment } from '../../../controlplane/models/index.js';
import { sharedStrings } from '../../../runtime/cache/string-interner.js';
import { sameJson } from '../../../runtime/same-json.js';

export type Observation =
  | { kind: 'present'; deployment: Deployment; observedAt: number }
  /** A batched list did not return the id: it may be gone; a GET must confirm. */
  | { kind: 'missing'; observedAt: number };

export class ObservationCache {
  private readonly entries = new Map<string, Observation>();

  get(id: string): Observation | undefined {
    return this.entries.get(id);
  }

  /** The observation if it is at most `maxAgeMs` old at `now`. */
  fresh(id: string, maxAgeMs: number, now: number): Observation | undefined {
    const entry = this.entries.get(id);
    return entry && now - entry.observedAt <= maxAgeMs ? entry : undefined;
  }

  /**
   * A deployment equal to the one already held keeps the held object: readers that remember
   * by identity (diff.ts's memo, the status memo) still hold after a poll that found nothing
   * new, and the fresh copy dies young instead of replacing an equal one in the old generation.
   * A deployment kept anew shares its strings with the cached objects (string-interner.ts).
   */
  recordPresent(deployment: Deployment, now: number): Observation | undefined {
    const previous = this.entries.get(deployment.id);
    const same = previous?.kind === 'present' && sameJson(previous.deployment, deployment);
    if (!same) sharedStrings.internAll(deployment);
    const held = same ? previous.deployment : deployment;
    this.entries.set(deployment.id, { kind: 'present', deployment: held, observedAt: now });
    return previous;
  }

  recordMissing(id: string, now: number): Observation | undefined {
    const previous = this.entries.get(id);
    this.entries.set(id, { kind: 'missing', observedAt: now });
    return previous;
  }

  forget(id: string): void {
    this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** True when the change matters to a reconcile (a revision moved, the status changed, ...). */
export function observationChanged(previous: Observation | undefined, next: Observation): boolean {
  if (!previous || previous.kind !== next.kind) return true;
  if (previous.kind === 'missing' || next.kind === 'missing') return false;
  const a = previous.deployment;
  const b = next.deployment;
  return (
    a.updated_at !== b.updated_at ||
    a.status !== b.status ||
    a.latest_revision_id !== b.latest_revision_id ||
    a.active_revision_id !== b.active_revision_id
  );
}
