// decide picks how a settled deployment is followed: at the push cadence when it builds on
// push (a push can make a revision without the operator), at the resync pace otherwise.
import { describe, expect, it } from 'vitest';
import type { Deployment } from '../../src/controlplane/models/index.js';
import type { Action } from '../../src/reconcilers/agentdeployment/action.js';
import { decide } from '../../src/reconcilers/agentdeployment/decide.js';
import { DEFAULT_TIMINGS } from '../../src/reconcilers/agentdeployment/defaults.js';
import type { Observed } from '../../src/reconcilers/agentdeployment/observed.js';
import { DESIRED, deployedWithUrl } from './support/smoke-test-fixtures.js';

function observed(deployment: Deployment): Observed {
  return {
    now: Date.parse('2026-11-26T09:00:00Z'),
    object: {
      key: 'team-a/bot',
      uid: 'uid-a',
      generation: 1,
      deleting: false,
      hasFinalizer: true,
      suspend: false,
      adoptExisting: false,
      observeOnly: false,
      deletionPolicy: 'Delete',
      deploymentName: 'bot',
    },
    status: { observedGeneration: 1, secretVersions: [] },
    ownership: { deploymentId: deployment.id },
    spec: {
      kind: 'valid',
      desired: { ...DESIRED, source_config: { ...deployment.source_config } },
      secretVersions: {},
    },
    claims: {},
    deployment: { kind: 'present', deployment },
    byName: { kind: 'unobserved' },
    knownRevisions: {},
    revisionPoll: { allowed: false, dueInMs: 1_000 },
  };
}

const trackOf = (action: Action) => (action.kind === 'publish' ? action.track?.mode : action.kind);

describe('decide: following a settled deployment', () => {
  const plain = deployedWithUrl();
  const onPush = deployedWithUrl({ source_config: { ...plain.source_config, build_on_push: true } });

  it('follows a deployed revision at the push cadence when the deployment builds on push', () => {
    expect(trackOf(decide(observed(onPush), DEFAULT_TIMINGS))).toBe('follow');
  });

  it('and at the resync pace otherwise', () => {
    expect(trackOf(decide(observed(plain), DEFAULT_TIMINGS))).toBe('steady');
  });

  it('a failed revision of a deployment that builds on push is followed too: the next push may fix it', () => {
    const failed = { ...onPush, latest_revision_id: 'r2' };
    const action = decide({ ...observed(failed), knownRevisions: { r2: 'BUILD_FAILED' } }, DEFAULT_TIMINGS);
    expect(action).toMatchObject({
      kind: 'publish',
      state: { kind: 'RevisionFailed' },
      track: { mode: 'follow' },
    });
  });
});
