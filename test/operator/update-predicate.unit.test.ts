import { describe, expect, it } from 'vitest';
import {
  isSettled,
  shouldReconcileOnUpdate,
} from '../../src/reconcilers/agentdeployment/update-predicate.js';
import type { AgentDeploymentView } from '../../src/reconcilers/agentdeployment/object.js';
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

describe('which AgentDeployments a starting leader looks at first', () => {
  const object = (
    generation: number,
    ready?: { status: string; observedGeneration: number },
    deleting = false,
  ) =>
    ({
      metadata: {
        name: 'a',
        namespace: 'n',
        generation,
        ...(deleting ? { deletionTimestamp: '2026-11-26T00:00:00Z' } : {}),
      },
      ...(ready ? { status: { conditions: [{ type: 'Ready', reason: 'Deployed', ...ready }] } } : {}),
    }) as unknown as AgentDeploymentView;

  it.each([
    ['a new object without status', object(1), true],
    ['an object edited since it was Ready', object(2, { status: 'True', observedGeneration: 1 }), true],
    [
      'an object not Ready at its generation (rolling out, stalled)',
      object(1, { status: 'False', observedGeneration: 1 }),
      true,
    ],
    ['an object being deleted', object(1, { status: 'True', observedGeneration: 1 }, true), true],
    [
      'a settled object: Ready at its generation',
      object(3, { status: 'True', observedGeneration: 3 }),
      false,
    ],
  ])('%s: %s', (_what, candidate, urgent) => {
    expect(isSettled(candidate)).toBe(!urgent);
  });
});
