import { describe, expect, it } from 'vitest';
import { knownUnchanged, unchangedStatus } from '../../src/reconcilers/agentdeployment/status-memo.js';
import type { AgentDeploymentStatusView } from '../../src/reconcilers/agentdeployment/object.js';
import type { StatusFacts } from '../../src/reconcilers/agentdeployment/status.js';
import type { SyncState } from '../../src/reconcilers/agentdeployment/sync-state.js';

const deployed: SyncState = { kind: 'Deployed', message: 'Revision r1 is deployed' };
const facts = (status: string): StatusFacts => ({
  latestRevisionStatus: status,
  secretVersions: { token: '7' },
  smokeTest: { kind: 'none' },
});
const frozenStatus = (): AgentDeploymentStatusView =>
  Object.freeze({ observedGeneration: 1, deploymentId: 'd' }) as AgentDeploymentStatusView;

describe('the status memo (no write needed, remembered for one status object)', () => {
  it('answers for the same status object with equal state and facts, built anew', () => {
    const status = frozenStatus();
    const memo = unchangedStatus(status, 1, deployed, facts('DEPLOYED'));
    expect(knownUnchanged(undefined, status, 1, deployed, facts('DEPLOYED'))).toBe(false);
    expect(knownUnchanged(memo, status, 1, { ...deployed }, facts('DEPLOYED'))).toBe(true);
  });

  it('does not answer when anything the next status is built from differs', () => {
    const status = frozenStatus();
    const memo = unchangedStatus(status, 1, deployed, facts('DEPLOYED'));
    expect(knownUnchanged(memo, status, 2, deployed, facts('DEPLOYED'))).toBe(false);
    expect(
      knownUnchanged(
        memo,
        status,
        1,
        { kind: 'Deployed', message: 'Revision r2 is deployed' },
        facts('DEPLOYED'),
      ),
    ).toBe(false);
    expect(knownUnchanged(memo, status, 1, deployed, facts('FAILED'))).toBe(false);
    expect(
      knownUnchanged(memo, status, 1, deployed, { ...facts('DEPLOYED'), secretVersions: { token: '8' } }),
    ).toBe(false);
    // An equal status, but another object: a write happened in between.
    expect(knownUnchanged(memo, frozenStatus(), 1, deployed, facts('DEPLOYED'))).toBe(false);
    expect(knownUnchanged(memo, undefined, 1, deployed, facts('DEPLOYED'))).toBe(false);
  });

  it('makes no memo for a status that could still change in place (not frozen), nor a missing one', () => {
    expect(unchangedStatus({ observedGeneration: 1 }, 1, deployed, facts('DEPLOYED'))).toBeUndefined();
    expect(unchangedStatus(undefined, 1, deployed, facts('DEPLOYED'))).toBeUndefined();
  });
});
