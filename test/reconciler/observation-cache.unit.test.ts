import { describe, expect, it } from 'vitest';
import type { Deployment } from '../../src/controlplane/models/index.js';
import { ObservationCache } from '../../src/reconcilers/agentdeployment/observation/observation-cache.js';

const deployment = (status: string): Deployment =>
  JSON.parse(
    JSON.stringify({
      id: 'd1',
      name: 'agent',
      status,
      source_config: { custom_url: null },
      latest_revision_id: 'r1',
      active_revision_id: 'r1',
    }),
  ) as Deployment;

describe('ObservationCache', () => {
  it('keeps the held deployment object when a poll brings an equal one', () => {
    const cache = new ObservationCache();
    const first = deployment('READY');
    cache.recordPresent(first, 1);
    cache.recordPresent(deployment('READY'), 2);
    const held = cache.get('d1');
    expect(held?.kind === 'present' && held.deployment).toBe(first);
    expect(held?.observedAt).toBe(2);
  });

  it('takes a changed deployment', () => {
    const cache = new ObservationCache();
    cache.recordPresent(deployment('READY'), 1);
    const changed = deployment('DEPLOYING');
    cache.recordPresent(changed, 2);
    const held = cache.get('d1');
    expect(held?.kind === 'present' && held.deployment).toBe(changed);
  });
});
