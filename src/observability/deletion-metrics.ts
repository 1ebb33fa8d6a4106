// agent_operator_data_deletions: TraceDeletions and ExampleDeletions by kind and phase,
// counted from the informers' caches at scrape time. Every kind/phase pair is exported, at 0
// when empty, so "0 Failed" reads as 0 and the Failed alert has a series to watch. An object
// the operator has not looked at yet (no status) counts as Pending, which is what it is.
// Each kind's informer binds itself; the gauge is created once per registry.
import { Gauge, type Registry } from 'prom-client';
import { DELETION_PHASES } from '../api/deletion/common.js';

export const DELETION_KINDS = ['TraceDeletion', 'ExampleDeletion'] as const;
export type DeletionKind = (typeof DELETION_KINDS)[number];

export interface PhasedObject {
  status?: { phase?: string };
}

const sourcesByRegistry = new WeakMap<Registry, Map<DeletionKind, () => readonly PhasedObject[]>>();

export function bindDeletionPhaseMetric(
  registry: Registry,
  kind: DeletionKind,
  objects: () => readonly PhasedObject[],
): void {
  let sources = sourcesByRegistry.get(registry);
  if (sources === undefined) {
    const bound = new Map<DeletionKind, () => readonly PhasedObject[]>();
    sources = bound;
    sourcesByRegistry.set(registry, bound);
    new Gauge({
      name: 'agent_operator_data_deletions',
      help: 'TraceDeletion and ExampleDeletion objects by kind and phase (Pending, Submitting, Submitted, Verifying, Completed, Failed).',
      labelNames: ['kind', 'phase'],
      registers: [registry],
      collect() {
        this.reset();
        for (const each of DELETION_KINDS) for (const phase of DELETION_PHASES) this.set({ kind: each, phase }, 0);
        for (const [each, list] of bound) {
          for (const object of list()) this.inc({ kind: each, phase: object.status?.phase || 'Pending' });
        }
      },
    });
  }
  sources.set(kind, objects);
}
