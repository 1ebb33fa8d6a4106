// decide with spec.rollback.onFailure and the rollback-to annotation, row by row: a failed
// revision goes back to the last one that worked, once; the set-aside spec is not re-applied
// until it changes; without the policy nothing changes; the annotation only names a revision
// of the history.
import { describe, expect, it } from 'vitest';
import type { RevisionRecord } from '../../src/api/agentdeployment/index.js';
import type { Deployment } from '../../src/controlplane/models/index.js';
import type { Action } from '../../src/reconcilers/agentdeployment/action.js';
import { decide, specKey } from '../../src/reconcilers/agentdeployment/decide.js';
import { DEFAULT_TIMINGS } from '../../src/reconcilers/agentdeployment/defaults.js';
import type { Observed } from '../../src/reconcilers/agentdeployment/observed.js';
import { smokeTestSpecHash } from '../../src/reconcilers/agentdeployment/smoke-test.js';
import type { SmokeTest } from '../../src/api/agentdeployment/index.js';
import { DESIRED, deployedWithUrl } from './support/smoke-test-fixtures.js';

const NOW = Date.parse('2026-11-26T09:00:00Z');
const R1 = 'aaaaaaaa-0000-4000-8000-000000000001';
const R2 = 'bbbbbbbb-0000-4000-8000-000000000002';
const R3 = 'cccccccc-0000-4000-8000-000000000003';
const GOOD = 'registry.example/bot:1';
const BAD = 'registry.example/bot:2';
const SMOKE: SmokeTest = { input: { messages: [] }, expect: { contains: 'pong' }, timeoutSeconds: 20 };

const good: RevisionRecord = { id: R1, status: 'DEPLOYED', image: GOOD, deployedAt: '2026-11-26T08:00:00Z' };
const failing: RevisionRecord = { id: R2, status: 'BUILDING', image: BAD };

interface Given {
  policy?: boolean;
  rollbackTo?: string;
  generation?: number;
  smokeTest?: SmokeTest;
  deployment?: Partial<Deployment>;
  status?: Observed['status'];
  known?: Record<string, string>;
  desiredImage?: string;
}

function observed(given: Given = {}): Observed {
  const generation = given.generation ?? 2;
  const smoke = given.smokeTest;
  return {
    now: NOW,
    object: {
      key: 'team-a/bot',
      uid: 'uid-a',
      generation,
      deleting: false,
      hasFinalizer: true,
      suspend: false,
      adoptExisting: false,
      observeOnly: false,
      deletionPolicy: 'Delete',
      deploymentName: 'bot',
      ...(smoke ? { smokeTest: { spec: smoke, hash: smokeTestSpecHash(smoke) } } : {}),
      ...(given.policy === false ? {} : { rollbackOnFailure: true }),
      ...(given.rollbackTo ? { rollbackTo: given.rollbackTo } : {}),
    },
    status: {
      observedGeneration: 2,
      secretVersions: [],
      latestRevisionId: R2,
      revisionHistory: [failing, good],
      ...given.status,
    },
    ownership: { deploymentId: deployedWithUrl().id },
    spec: {
      kind: 'valid',
      desired: { ...DESIRED, source_revision_config: { image_uri: given.desiredImage ?? BAD } },
      secretVersions: {},
    },
    claims: {},
    deployment: {
      kind: 'present',
      deployment: deployedWithUrl({
        latest_revision_id: R2,
        active_revision_id: R1,
        source_revision_config: { image_uri: BAD },
        ...given.deployment,
      }),
    },
    byName: { kind: 'unobserved' },
    knownRevisions: given.known ?? { [R2]: 'BUILD_FAILED' },
    revisionPoll: { allowed: false, dueInMs: 1_000 },
  };
}

const key = (generation = 2): string =>
  specKey({
    object: { generation } as Observed['object'],
    spec: { kind: 'valid', desired: DESIRED, secretVersions: {} },
  });

function kindOf(action: Action): string {
  return action.kind === 'publish' ? `publish ${action.state.kind}` : action.kind;
}

describe('decide with spec.rollback.onFailure', () => {
  it('a failed build goes back to the image of the last deployed revision, and records why', () => {
    const action = decide(observed(), DEFAULT_TIMINGS);
    expect(action).toMatchObject({
      kind: 'rollback',
      patch: { source_revision_config: { image_uri: GOOD } },
      state: {
        kind: 'RolledBack',
        message: expect.stringContaining(
          'Rolling back to revision aaaaaaaa (image registry.example/bot:1): revision bbbbbbbb ended BUILD_FAILED',
        ) as unknown,
      },
      facts: {
        latestRevisionStatus: 'BUILD_FAILED',
        rollback: { revisionId: R1, failedRevisionId: R2, specKey: key(), at: new Date(NOW).toISOString() },
      },
      event: { type: 'Warning', reason: 'RolledBack' },
    });
  });

  it('without the policy a failed revision stays as it is: RevisionFailed, no write', () => {
    const action = decide(observed({ policy: false }), DEFAULT_TIMINGS);
    expect(kindOf(action)).toBe('publish RevisionFailed');
  });

  it('a smoke-test failure goes back to the last revision that passed its smoke test', () => {
    const action = decide(
      observed({
        smokeTest: SMOKE,
        deployment: { active_revision_id: R2 },
        known: {},
        status: {
          revisionHistory: [
            { ...failing, status: 'DEPLOYED' },
            { ...good, smokeTest: 'Passed' },
          ],
          smokeTest: {
            revisionId: R2,
            specHash: smokeTestSpecHash(SMOKE),
            result: 'Failed',
            message: 'no pong',
          },
        },
      }),
      DEFAULT_TIMINGS,
    );
    expect(action).toMatchObject({
      kind: 'rollback',
      patch: { source_revision_config: { image_uri: GOOD } },
      facts: { rollback: { revisionId: R1, reason: 'revision bbbbbbbb failed its smoke test' } },
    });
  });

  it('with no revision that passed its smoke test, nothing is sent and a RollbackNotPossible event says why', () => {
    const action = decide(observed({ smokeTest: SMOKE }), DEFAULT_TIMINGS);
    expect(kindOf(action)).toBe('publish RevisionFailed');
    expect(action).toMatchObject({
      events: [
        {
          type: 'Warning',
          reason: 'RollbackNotPossible',
          message:
            'spec.rollback.onFailure: revision bbbbbbbb is not rolled back: no revision in status.revisionHistory was deployed and passed its smoke test',
        },
      ],
    });
  });

  it('a repository revision of the same ref and path is not rolled back: the API cannot pin a commit', () => {
    const action = decide(
      observed({
        status: {
          revisionHistory: [
            { id: R2, status: 'BUILDING', repoRef: 'main', commit: 'b'.repeat(40) },
            { id: R1, status: 'DEPLOYED', repoRef: 'main', commit: 'a'.repeat(40) },
          ],
        },
      }),
      DEFAULT_TIMINGS,
    );
    expect(kindOf(action)).toBe('publish RevisionFailed');
    expect(action).toMatchObject({
      events: [
        { reason: 'RollbackNotPossible', message: expect.stringContaining('cannot pin a commit') as unknown },
      ],
    });
  });

  it('after the rollback, the set-aside spec is not re-applied: RolledBack (Stalled), no patch', () => {
    const rolledBack = observed({
      deployment: {
        latest_revision_id: R3,
        active_revision_id: R3,
        source_revision_config: { image_uri: GOOD },
      },
      known: {},
      status: {
        latestRevisionId: R3,
        revisionHistory: [
          { id: R3, status: 'DEPLOYED', image: GOOD },
          { ...failing, status: 'BUILD_FAILED' },
          good,
        ],
        rollback: {
          revisionId: R1,
          failedRevisionId: R2,
          reason: 'revision bbbbbbbb ended BUILD_FAILED',
          at: new Date(NOW).toISOString(),
          specKey: key(),
        },
      },
    });
    const action = decide(rolledBack, DEFAULT_TIMINGS);
    expect(action).toMatchObject({
      kind: 'publish',
      state: {
        kind: 'RolledBack',
        message:
          'Rolled back to revision aaaaaaaa (revision bbbbbbbb ended BUILD_FAILED); Revision cccccccc-0000-4000-8000-000000000003 is deployed; the spec is not applied again until it changes',
      },
    });
    // A new generation is a new spec: it is applied, and the rollback record is spent.
    const changed = decide(
      { ...rolledBack, object: { ...rolledBack.object, generation: 3 } },
      DEFAULT_TIMINGS,
    );
    expect(changed).toMatchObject({
      kind: 'patch',
      patch: { source_revision_config: { image_uri: BAD } },
      facts: { rollback: null },
    });
  });

  it('a rollback recorded whose PATCH did not land is sent again', () => {
    const action = decide(
      observed({
        status: {
          rollback: {
            revisionId: R1,
            failedRevisionId: R2,
            reason: 'revision bbbbbbbb ended BUILD_FAILED',
            at: new Date(NOW).toISOString(),
            specKey: key(),
          },
        },
      }),
      DEFAULT_TIMINGS,
    );
    expect(action).toMatchObject({
      kind: 'rollback',
      patch: { source_revision_config: { image_uri: GOOD } },
    });
  });
});

describe('the rollback-to annotation', () => {
  const settled = { deployment: { active_revision_id: R2 }, known: {}, policy: false } as const;

  it('rolls back to a revision of the history named by its short id, without the policy', () => {
    const action = decide(observed({ ...settled, rollbackTo: 'aaaaaaaa' }), DEFAULT_TIMINGS);
    expect(action).toMatchObject({
      kind: 'rollback',
      patch: { source_revision_config: { image_uri: GOOD } },
      facts: {
        handledRollbackTo: 'aaaaaaaa',
        rollback: { revisionId: R1, reason: 'asked by the agentplatform.io/rollback-to annotation' },
      },
    });
  });

  it('refuses a revision not in the history with an event naming the annotation and the rule, once', () => {
    const action = decide(observed({ ...settled, rollbackTo: 'deadbeef' }), DEFAULT_TIMINGS);
    expect(action).toMatchObject({
      kind: 'publish',
      state: { kind: 'Deployed' },
      facts: { handledRollbackTo: 'deadbeef' },
      events: [
        {
          type: 'Warning',
          reason: 'RollbackRefused',
          message:
            'metadata.annotations["agentplatform.io/rollback-to"]: "deadbeef" is not a revision of status.revisionHistory; only a revision listed there (by id or its first 8 characters) can be rolled back to',
        },
      ],
    });
    const handled = decide(
      observed({ ...settled, rollbackTo: 'deadbeef', status: { lastHandledRollbackTo: 'deadbeef' } }),
      DEFAULT_TIMINGS,
    );
    expect(handled).not.toHaveProperty('events');
  });
});
