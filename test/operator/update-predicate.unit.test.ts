import { describe, expect, it } from 'vitest';
import { shouldReconcileOnUpdate } from '../../src/reconcilers/agentdeployment/update-predicate.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';

const base: KubeObject = {
  metadata: {
    name: 'a',
    namespace: 'n',
    generation: 1,
    resourceVersion: '1',
    annotations: { x: '1' },
    finalizers: ['f'],
  },
  status: { conditions: [] },
};
const changed = (patch: Partial<KubeObject['metadata']>, status?: unknown): KubeObject => ({
  ...base,
  metadata: { ...base.metadata, resourceVersion: '2', ...patch },
  status: status ?? base.status,
});

describe('which updates wake an AgentDeployment', () => {
  it.each([
    ['a status-only write (the operator’s own)', changed({}, { conditions: [{ type: 'Ready' }] }), false],
    ['a spec change (generation)', changed({ generation: 2 }), true],
    ['deletion', changed({ deletionTimestamp: '2026-11-21T00:00:00Z' }), true],
    ['an annotation change', changed({ annotations: { x: '2' } }), true],
    ['a finalizer change', changed({ finalizers: [] }), true],
    ['an annotation added', changed({ annotations: { x: '1', y: '' } }), true],
    ['an annotation removed', changed({ annotations: {} }), true],
    ['an annotation renamed, same count', changed({ annotations: { y: '1' } }), true],
    ['the annotations removed whole', changed({ annotations: undefined }), true],
    [
      'the same annotations and finalizers, copied',
      changed({ annotations: { x: '1' }, finalizers: ['f'] }),
      false,
    ],
    ['finalizers reordered', changed({ finalizers: ['g', 'f'] }), true],
  ])('%s -> %s', (_what, current, expected) => {
    expect(shouldReconcileOnUpdate(base, current)).toBe(expected);
  });

  it('passes the cache’s periodic re-delivery of the same object (resync)', () => {
    expect(shouldReconcileOnUpdate(base, base)).toBe(true);
  });
});
