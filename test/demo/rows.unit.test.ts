// The demo's table row, read from one AgentDeployment's status: a status caught between two
// of the operator's writes is flagged, so the demo keeps showing the previous row.
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../src/demo/manifests.js';
import { rowOf } from '../../src/demo/rows.js';

function object(status: Record<string, unknown>): Manifest {
  return {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name: 'support-bot', namespace: 'agents-demo', generation: 2 },
    spec: { source: 'external_container' },
    status: { observedGeneration: 2, ...status },
  };
}

const ready = (status: string, reason: string) => ({
  conditions: [{ type: 'Ready', status, reason, message: '' }],
});

describe('rowOf', () => {
  it('a DEPLOYED revision that is not yet the active one is not a consistent picture', () => {
    const row = rowOf(
      object({
        latestRevisionId: 'b',
        latestRevisionStatus: 'DEPLOYED',
        activeRevisionId: 'a',
        ...ready('False', 'RevisionInProgress'),
      }),
    );
    expect(row.consistent).toBe(false);
  });

  it('Ready=True while the newest revision is still building is not consistent either', () => {
    const row = rowOf(
      object({
        latestRevisionId: 'b',
        latestRevisionStatus: 'BUILDING',
        activeRevisionId: 'a',
        ...ready('True', 'Deployed'),
      }),
    );
    expect(row.consistent).toBe(false);
  });

  it.each([
    [
      'a rollout in progress',
      {
        latestRevisionId: 'b',
        latestRevisionStatus: 'BUILDING',
        activeRevisionId: 'a',
        ...ready('False', 'RevisionInProgress'),
      },
    ],
    [
      'the rollout done',
      {
        latestRevisionId: 'b',
        latestRevisionStatus: 'DEPLOYED',
        activeRevisionId: 'b',
        ...ready('True', 'Deployed'),
      },
    ],
    ['no status yet', {}],
  ])('%s is consistent', (_, status) => {
    const row = rowOf(object(status));
    expect(row.consistent).toBe(true);
  });

  it('is settled only when Ready=True is about the current generation', () => {
    const stale = object({
      latestRevisionId: 'a',
      latestRevisionStatus: 'DEPLOYED',
      activeRevisionId: 'a',
      ...ready('True', 'Deployed'),
    });
    stale.metadata.generation = 3;
    expect(rowOf(stale).settled).toBe(false);
  });
});
