// The decision core, row by row (Crossplane style): each case names the situation, the
// reason the expected action is right, and the action. Plain data in, one action out.
import { describe, expect, it } from 'vitest';
import type { Deployment, DeploymentCreateRequest } from '../../src/controlplane/models/index.js';
import type { Action } from '../../src/reconcilers/agentdeployment/action.js';
import {
  LADDER,
  decide,
  decideWithRung,
  recheckDelayMs,
  specKey,
} from '../../src/reconcilers/agentdeployment/decide.js';
import { DEFAULT_TIMINGS } from '../../src/reconcilers/agentdeployment/defaults.js';
import type { Observed } from '../../src/reconcilers/agentdeployment/observed.js';
import { decideTable, type DecideRow } from '../support/decide-table.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const ID = '11111111-1111-4111-8111-111111111111';
const OTHER_ID = '22222222-2222-4222-8222-222222222222';
const t = DEFAULT_TIMINGS;

const desired: DeploymentCreateRequest = {
  name: 'bot',
  source: 'external_container',
  source_config: { listener_id: '33333333-3333-4333-8333-333333333333' },
  source_revision_config: { image_uri: 'registry.example/bot:1' },
  secrets: [],
};

function deployment(overrides: Partial<Deployment> = {}): Deployment {
  return {
    id: ID,
    name: 'bot',
    source: 'external_container',
    source_config: { listener_id: '33333333-3333-4333-8333-333333333333' },
    source_revision_config: { image_uri: 'registry.example/bot:1' },
    secrets: [],
    tenant_id: '00000000-0000-4000-8000-000000000000',
    created_at: '2026-11-23T11:59:00Z',
    updated_at: '2026-11-23T11:59:00Z',
    status: 'READY',
    latest_revision_id: 'r1',
    active_revision_id: 'r1',
    ...overrides,
  };
}

type Overrides = Omit<Partial<Observed>, 'object'> & { object?: Partial<Observed['object']> };

function observed(overrides: Overrides = {}): Observed {
  const { object, ...rest } = overrides;
  return {
    now: NOW,
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
      ...object,
    },
    status: {},
    ownership: {},
    spec: { kind: 'valid', desired, secretVersions: {} },
    claims: {},
    deployment: { kind: 'unobserved' },
    byName: { kind: 'unobserved' },
    knownRevisions: {},
    revisionPoll: { allowed: true, dueInMs: 0 },
    ...rest,
  };
}

const owned = { deploymentId: ID };
/** The create of `desired` (built with Secret version 4 of `keys`), refused as Terminal in the last pass. */
const REFUSED_CREATE = {
  specKey: '1|keys=4|',
  name: 'bot',
  message: 'HTTP 400: listener not found',
  facts: { secretVersions: { keys: '4' } },
};
const readyStatus = {
  observedGeneration: 1,
  secretVersions: [],
  conditions: [
    {
      type: 'Ready',
      status: 'True' as const,
      reason: 'Deployed',
      message: '',
      lastTransitionTime: '2026-11-23T11:00:00Z',
      observedGeneration: 1,
    },
  ],
};

const exportedDeployment = deployment({
  source_config: {
    listener_id: '33333333-3333-4333-8333-333333333333',
    custom_url: 'https://bot.example/agents/1',
  },
});
const exportedData = {
  AGENT_URL: 'https://bot.example/agents/1',
  DEPLOYMENT_ID: ID,
  DEPLOYMENT_NAME: 'bot',
  ACTIVE_REVISION_ID: 'r1',
  TENANT_ID: '00000000-0000-4000-8000-000000000000',
};
const exportedCondition = {
  type: 'Exported',
  status: 'True' as const,
  reason: 'Exported',
  message:
    'ConfigMap bot-agent holds ACTIVE_REVISION_ID, AGENT_URL, DEPLOYMENT_ID, DEPLOYMENT_NAME, TENANT_ID',
  lastTransitionTime: '2026-11-23T11:00:00Z',
  observedGeneration: 1,
};

/** `expect` is matched partially; `check` adds what the partial match cannot say. */
type Row = DecideRow<Observed, Partial<Action> & { kind: Action['kind'] }, Action>;

const rows: Row[] = [
  // ---- deletion ----
  {
    name: 'deleting without our finalizer',
    reason: 'someone else holds the object; nothing of ours to clean up',
    given: observed({ object: { deleting: true, hasFinalizer: false } }),
    expect: { kind: 'nothing' },
  },
  {
    name: 'deleting a suspended object that owns a deployment',
    reason: 'suspend means no control-plane writes: release and leave the deployment, saying so',
    given: observed({ object: { deleting: true, suspend: true }, ownership: owned }),
    expect: {
      kind: 'release',
      event: {
        type: 'Normal',
        reason: 'Orphaned',
        message: expect.stringContaining('suspended') as unknown as string,
      },
    },
  },
  {
    name: 'deleting with deletionPolicy Orphan',
    reason: 'the policy keeps the deployment',
    given: observed({ object: { deleting: true, deletionPolicy: 'Orphan' }, ownership: owned }),
    expect: { kind: 'release' },
    check: (action) =>
      // The namespace that orphans it is recorded first, so that it alone may adopt it back.
      expect(action).toMatchObject({ orphaned: owned.deploymentId, event: { reason: 'Orphaned' } }),
  },
  {
    name: 'deleting an object that never owned a deployment (the loser of a name clash)',
    reason: 'a finalizer deletes only what this object recorded as its own: never by name',
    given: observed({
      object: { deleting: true },
      byName: { kind: 'found', deployments: [deployment()] },
    }),
    expect: { kind: 'release' },
    check: (action) => expect(action).not.toHaveProperty('event'),
  },
  {
    name: 'deleting with a recorded create intent but no id, and a deployment created after it',
    reason: 'the create may have landed: adopt it (so deletion can then delete it by id)',
    given: observed({
      object: { deleting: true },
      ownership: { createRequestedAt: NOW - 120_000 },
      byName: { kind: 'found', deployments: [deployment()] },
    }),
    expect: { kind: 'adopt', reason: 'CreateRecovered' },
  },
  {
    name: 'deleting with a recorded intent, the deployment of that name being older than the intent',
    reason: 'an older deployment is somebody else’s: release without touching it',
    given: observed({
      object: { deleting: true },
      ownership: { createRequestedAt: NOW },
      byName: { kind: 'found', deployments: [deployment({ created_at: '2026-11-20T00:00:00Z' })] },
    }),
    expect: { kind: 'release' },
  },
  {
    name: 'deleting with a recorded intent: the lookup comes first',
    reason: 'nothing can be released or deleted before knowing whether the create landed',
    given: observed({ object: { deleting: true }, ownership: { createRequestedAt: NOW - 1_000 } }),
    expect: { kind: 'observeName', name: 'bot' },
  },
  {
    name: 'deleting an owned deployment not yet observed',
    reason: 'deletion looks at the deployment now (a GET), not through the poller',
    given: observed({ object: { deleting: true }, ownership: owned }),
    expect: { kind: 'observeDeployment', id: ID, maxAgeMs: 0 },
  },
  {
    name: 'deleting an owned deployment that exists',
    reason: 'the deployment is ours by recorded id',
    given: observed({
      object: { deleting: true },
      ownership: owned,
      deployment: { kind: 'present', deployment: deployment() },
    }),
    expect: { kind: 'delete', id: ID },
  },
  {
    name: 'deleting an owned deployment with tracingProjectDeletionPolicy Delete',
    reason: 'the DELETE of the owned id takes its own tracing project along (delete_tracing_project=true)',
    given: observed({
      object: { deleting: true, deleteTracingProject: true },
      ownership: owned,
      deployment: { kind: 'present', deployment: deployment() },
    }),
    expect: { kind: 'delete', id: ID, deleteTracingProject: true },
  },
  {
    name: 'deleting an owned deployment already being deleted',
    reason: 'wait for it to go, without a second DELETE',
    given: observed({
      object: { deleting: true },
      ownership: owned,
      deployment: { kind: 'present', deployment: deployment({ status: 'AWAITING_DELETE' }) },
    }),
    expect: { kind: 'publish', requeueAfterMs: t.deletionPollMs },
    check: (action) => expect(action).toMatchObject({ state: { kind: 'Deleting' } }),
  },
  {
    name: 'deleting an owned deployment that is gone',
    reason: 'done: release the finalizer',
    given: observed({ object: { deleting: true }, ownership: owned, deployment: { kind: 'gone' } }),
    expect: {
      kind: 'release',
      event: { type: 'Normal', reason: 'Deleted', message: `Deployment ${ID} is deleted` },
    },
  },
  // ---- ownership a tenant forged (status written with a status-subresource right) ----
  {
    name: 'deleting an object whose recorded deployment carries another name',
    reason:
      'spec.name is immutable, so only a forged status.ownership names another deployment: never DELETE it',
    given: observed({
      object: { deleting: true },
      ownership: owned,
      deployment: { kind: 'present', deployment: deployment({ name: 'someone-elses' }) },
    }),
    expect: { kind: 'release' },
    check: (action) =>
      expect(action).toMatchObject({ event: { type: 'Warning', reason: 'OwnershipConflict' } }),
  },
  {
    name: 'deleting an object whose recorded id an older object records too',
    reason: 'two records of one id: the older object made or adopted it; the younger releases without a call',
    given: observed({ object: { deleting: true }, ownership: { ...owned, disputedBy: 'team-a/victim' } }),
    expect: { kind: 'release' },
    check: (action) =>
      expect(action).toMatchObject({ event: { type: 'Warning', reason: 'OwnershipConflict' } }),
  },
  {
    name: 'an owned deployment that carries another name',
    reason:
      'status.ownership is verified against the control plane: no PATCH to another name, no facts copied from it',
    given: observed({
      ownership: owned,
      spec: {
        kind: 'valid',
        desired: { ...desired, source_revision_config: { image_uri: 'evil:1' } },
        secretVersions: {},
      },
      deployment: { kind: 'present', deployment: deployment({ name: 'someone-elses' }) },
    }),
    expect: { kind: 'publish', facts: {} },
    check: (action) =>
      expect(action).toMatchObject({
        state: {
          kind: 'OwnershipConflict',
          message: expect.not.stringContaining('someone-elses') as unknown as string,
        },
      }),
  },
  {
    name: 'a recorded id an older object records too',
    reason: 'the younger record is not trusted: Stalled before any read or write',
    given: observed({ ownership: { ...owned, disputedBy: 'team-a/victim' } }),
    expect: { kind: 'publish' },
    check: (action) =>
      expect(action).toMatchObject({
        state: {
          kind: 'OwnershipConflict',
          message: expect.stringContaining('team-a/victim') as unknown as string,
        },
      }),
  },
  {
    name: 'a recorded intent long before a deployment of that name was created',
    reason:
      'each create records its intent right before the POST: a far older intent (forged, or stale) recovers nothing',
    given: observed({
      ownership: { createRequestedAt: Date.parse('2026-11-23T11:00:00Z') },
      byName: { kind: 'found', deployments: [deployment({ created_at: '2026-11-23T11:59:00Z' })] },
    }),
    expect: { kind: 'publish' },
    check: (action) => expect(action).toMatchObject({ state: { kind: 'NameConflict' } }),
  },
  // ---- adoption where the configuration forbids it ----
  {
    name: 'adoptExisting finds a free deployment, adoption not permitted here',
    reason: 'the platform team decides which namespaces may take over deployments made outside the operator',
    given: observed({
      object: { adoptExisting: true },
      adoptionForbidden: 'adoption is permitted only from the namespaces ops',
      byName: { kind: 'found', deployments: [deployment()] },
    }),
    expect: { kind: 'publish' },
    check: (action) =>
      expect(action).toMatchObject({
        state: {
          kind: 'AdoptionNotAllowed',
          message: expect.stringContaining('only from the namespaces ops') as unknown as string,
        },
        refused: { reason: 'AdoptionNotAllowed' },
      }),
  },
  {
    name: 'adoptExisting finds the deployment its own namespace orphaned, adoption not permitted here',
    reason: 'a team takes back what it orphaned for a migration; nobody else may unless trusted',
    given: observed({
      object: { adoptExisting: true },
      adoptionForbidden: 'adoption is turned off',
      orphanedHere: [deployment().id],
      byName: { kind: 'found', deployments: [deployment()] },
    }),
    expect: { kind: 'adopt' },
  },
  {
    name: 'adoptExisting finds a deployment another namespace orphaned, adoption not permitted here',
    reason: "another team's orphan is not free for the taking",
    given: observed({
      object: { adoptExisting: true },
      adoptionForbidden: 'adoption is turned off',
      orphanedHere: [OTHER_ID],
      byName: { kind: 'found', deployments: [deployment()] },
    }),
    expect: { kind: 'publish' },
    check: (action) => expect(action).toMatchObject({ state: { kind: 'AdoptionNotAllowed' } }),
  },
  {
    name: 'adoptExisting, adoption not permitted, no deployment of that name',
    reason: 'nothing to adopt: creating is always allowed',
    given: observed({
      object: { adoptExisting: true },
      adoptionForbidden: 'adoption is turned off',
      byName: { kind: 'found', deployments: [] },
    }),
    expect: { kind: 'create' },
  },
  {
    name: 'a deployment-id hint, adoption not permitted here',
    reason: 'following a hint to a free deployment is adoption too: it is not looked at',
    given: observed({
      object: { hintedDeploymentId: OTHER_ID },
      adoptionForbidden: 'adoption is turned off',
    }),
    expect: { kind: 'create' },
  },
  // ---- spec, suspend, fleet ----
  {
    name: 'a spec the operator cannot understand',
    reason: 'an object that slipped past validation is skipped, with the field named',
    given: observed({ spec: { kind: 'invalid', message: 'spec.secrets.0.valueFrom: required' } }),
    expect: { kind: 'publish' },
    check: (action) =>
      expect(action).toMatchObject({
        state: { kind: 'InvalidSpec', message: 'spec.secrets.0.valueFrom: required' },
      }),
  },
  {
    name: 'suspended',
    reason: 'no control-plane write at all; only the Suspended condition',
    given: observed({ object: { suspend: true }, ownership: owned }),
    expect: { kind: 'publish' },
    check: (action) => expect(action).toMatchObject({ state: { kind: 'Suspended' } }),
  },
  {
    name: 'an older object of the fleet claims the same name',
    reason: 'exactly one object may own a name; the younger is Stalled naming the other, with zero calls',
    given: observed({ rival: 'team-b/bot' }),
    expect: { kind: 'publish' },
    check: (action) =>
      expect(action).toMatchObject({
        state: { kind: 'NameConflict', message: expect.stringContaining('team-b/bot') },
      }),
  },
  ...(['ConnectionNotFound', 'ConnectionNotReady', 'ConnectionNotAllowed'] as const).map((reason): Row => ({
    name: `its connection is refused: ${reason}`,
    reason: 'no lane, no call: Stalled with the refusal, re-checked slowly (its watch brings the fix sooner)',
    given: observed({
      connectionRefused: { reason, message: `PlatformConnection team-a/eu: ${reason}` },
      ownership: owned,
      byName: { kind: 'found', deployments: [deployment()] },
      rival: 'team-b/bot',
    }),
    expect: { kind: 'publish', requeueAfterMs: t.secretWaitMs },
    check: (action) =>
      expect(action).toMatchObject({
        state: { kind: reason, message: `spec.connectionRef: PlatformConnection team-a/eu: ${reason}` },
      }),
  })),
  {
    name: 'a listenerRef or integrationRef names nothing on the connection',
    reason: 'Stalled naming the names that exist, no write; re-checked slowly in case one is added',
    given: observed({
      spec: {
        kind: 'unknownName',
        message: 'spec.sourceConfig.listenerRef.name: no listener named "x"; the workspace has "a"',
      },
    }),
    expect: { kind: 'publish', requeueAfterMs: t.stalledRecheckMs },
    check: (action) =>
      expect(action).toMatchObject({
        state: { kind: 'InvalidSpec', message: expect.stringContaining('"a"') },
      }),
  },
  {
    name: 'reading the listener names failed',
    reason: 'a failure like any other: errorPolicy decides (throttled waits, 5xx backs off)',
    given: observed({
      spec: { kind: 'namesFailed', error: { kind: 'Throttled', message: 'x', retryAfterMs: 500 } },
    }),
    expect: { kind: 'fail', error: { kind: 'Throttled', message: 'x', retryAfterMs: 500 } },
  },
  {
    name: 'deleting an object that owns a deployment while its connection is refused',
    reason: 'deleting the deployment takes a call on that connection: wait for it, keep the finalizer',
    given: observed({
      object: { deleting: true },
      ownership: owned,
      connectionRefused: {
        reason: 'ConnectionNotReady',
        message: 'ClusterPlatformConnection eu is not Ready: x',
      },
    }),
    expect: {
      kind: 'publish',
      state: { kind: 'ConnectionNotReady', message: expect.any(String) as unknown as string },
    },
  },
  {
    name: 'deleting an object that never created anything while its connection is refused',
    reason: 'nothing to delete, no call needed: release',
    given: observed({
      object: { deleting: true },
      connectionRefused: { reason: 'ConnectionNotFound', message: 'ClusterPlatformConnection eu not found' },
    }),
    expect: { kind: 'release' },
  },
  {
    name: 'a rival exists but this object already owns its deployment',
    reason: 'recorded ownership wins over age: never give away a deployment in use',
    given: observed({ rival: 'team-b/bot', ownership: owned }),
    expect: { kind: 'observeDeployment', id: ID },
  },
  {
    name: 'a referenced Secret is missing',
    reason: 'not Stalled: applying the Secret heals it; no call meanwhile',
    given: observed({ spec: { kind: 'secretMissing', message: 'Secret "keys" not found' } }),
    expect: { kind: 'publish', requeueAfterMs: t.secretWaitMs },
    check: (action) => expect(action).toMatchObject({ state: { kind: 'SecretNotFound' } }),
  },
  // ---- creation ----
  {
    name: 'a new object without the finalizer',
    reason: 'the finalizer comes before anything that deletion would have to clean up',
    given: observed({ object: { hasFinalizer: false } }),
    expect: { kind: 'addFinalizer' },
  },
  {
    name: 'a new object with the finalizer',
    reason: 'nothing recorded, nothing to adopt: create',
    given: observed(),
    expect: { kind: 'create', request: desired },
  },
  {
    name: 'a create the control plane refused for this very spec, re-check not yet due',
    reason: 'no call until the spec changes or the slow re-check is due',
    given: observed({
      refused: {
        specKey: '1||',
        reason: 'Rejected',
        message: 'HTTP 400: unknown listener',
        at: NOW - 1_000,
        recheckFailures: 0,
      },
    }),
    expect: { kind: 'publish', requeueAfterMs: t.stalledRecheckMs - 1_000 },
    check: (action) =>
      expect(action).toMatchObject({ state: { kind: 'Rejected', message: 'HTTP 400: unknown listener' } }),
  },
  {
    name: 'a refused create whose re-check is due',
    reason: 'the cause may be gone (a listener added): try once more',
    given: observed({
      refused: {
        specKey: '1||',
        reason: 'Rejected',
        message: 'x',
        at: NOW - t.stalledRecheckMs,
        recheckFailures: 0,
      },
    }),
    expect: { kind: 'create' },
  },
  {
    name: 'a refused create, then the spec changed',
    reason: 'a new generation is a new request: send it at once',
    given: observed({
      object: { generation: 2 },
      refused: { specKey: '1||', reason: 'Rejected', message: 'x', at: NOW - 1_000, recheckFailures: 3 },
    }),
    expect: { kind: 'create' },
  },
  // ---- a create the control plane just refused (Terminal) ----
  {
    name: 'a create refused in the last pass, the name not looked up yet',
    reason: 'a 400 may be a name clash: ask the control plane rather than parse its message',
    given: observed({ ownership: { createRequestedAt: NOW - 1_000 }, refusedCreate: REFUSED_CREATE }),
    expect: { kind: 'observeName', name: 'bot' },
  },
  {
    name: 'a refused create whose name the lookup finds taken, created after the intent',
    reason:
      'the POST was refused, so that deployment is not ours to recover: NameConflict, remembered so the POST is not repeated',
    given: observed({
      ownership: { createRequestedAt: NOW - 1_000 },
      refusedCreate: REFUSED_CREATE,
      byName: { kind: 'found', deployments: [deployment({ created_at: '2026-11-23T11:59:59Z' })] },
    }),
    expect: {
      kind: 'publish',
      state: {
        kind: 'NameConflict',
        message:
          'A deployment named "bot" already exists in the tenant and is not managed by this object; set spec.adoptExisting: true to manage it, or choose another spec.name',
      },
      facts: { secretVersions: { keys: '4' }, ownership: { uid: 'uid-a' } },
      refused: { specKey: '1|keys=4|', reason: 'NameConflict' },
    },
  },
  {
    name: 'a refused create whose name is free',
    reason:
      'not a name clash: Rejected with the server’s reason, and the intent cleared (nothing was created)',
    given: observed({
      ownership: { createRequestedAt: NOW - 1_000 },
      refusedCreate: REFUSED_CREATE,
      byName: { kind: 'found', deployments: [] },
    }),
    expect: {
      kind: 'publish',
      state: {
        kind: 'Rejected',
        message: 'The control plane rejected the deployment: HTTP 400: listener not found',
      },
      facts: { secretVersions: { keys: '4' }, ownership: { uid: 'uid-a' } },
      refused: { specKey: '1|keys=4|', reason: 'Rejected' },
    },
    check: (action) => expect(action).not.toHaveProperty('facts.ownership.createRequestedAt'),
  },
  {
    name: 'a refused create whose name lookup failed',
    reason: 'without an answer the server’s words are the verdict, not the error policy',
    given: observed({
      refusedCreate: REFUSED_CREATE,
      byName: { kind: 'failed', error: { kind: 'Transient', message: 'reset' } },
    }),
    expect: {
      kind: 'publish',
      state: {
        kind: 'Rejected',
        message: 'The control plane rejected the deployment: HTTP 400: listener not found',
      },
      refused: { specKey: '1|keys=4|', reason: 'Rejected' },
    },
  },
  {
    name: 'deleting right after a refused create, before its verdict',
    reason:
      'the POST was refused, so the recorded intent created nothing: release without a lookup, never adopting (and deleting) a deployment of that name',
    given: observed({
      object: { deleting: true },
      ownership: { createRequestedAt: NOW - 1_000 },
      refusedCreate: REFUSED_CREATE,
      byName: { kind: 'found', deployments: [deployment({ created_at: '2026-11-23T11:59:59Z' })] },
    }),
    expect: { kind: 'release' },
    check: (action) => expect(action).not.toHaveProperty('event'),
  },
  {
    name: 'a refused create, the object suspended before the verdict',
    reason: 'the rungs above win: suspension makes no call, not even the lookup',
    given: observed({ object: { suspend: true }, refusedCreate: REFUSED_CREATE }),
    expect: {
      kind: 'publish',
      state: { kind: 'Suspended', message: expect.any(String) as unknown as string },
    },
  },
  // ---- the order of the upper rungs ----
  {
    name: 'a disputed ownership while the connection is refused',
    reason: 'the connection is checked first: whatever status claims, nothing can be called on it',
    given: observed({
      ownership: { deploymentId: ID, disputedBy: 'team-b/bot' },
      connectionRefused: { reason: 'ConnectionNotFound', message: 'no such connection' },
    }),
    expect: {
      kind: 'publish',
      state: { kind: 'ConnectionNotFound', message: 'spec.connectionRef: no such connection' },
    },
  },
  {
    name: 'a rival claims the name while a listenerRef names nothing',
    reason: 'the spec’s own error is said first: it needs fixing whoever holds the name',
    given: observed({ rival: 'team-b/bot', spec: { kind: 'unknownName', message: 'listenerRef: no "x"' } }),
    expect: { kind: 'publish', state: { kind: 'InvalidSpec', message: 'listenerRef: no "x"' } },
  },
  {
    name: 'a recorded create intent without an id',
    reason: 'the create may have landed: look it up by name before creating again',
    given: observed({ ownership: { createRequestedAt: NOW - 5_000 } }),
    expect: { kind: 'observeName', name: 'bot' },
  },
  {
    name: 'intent recorded, a deployment of that name created after it',
    reason: 'that is our own create: recover it',
    given: observed({
      ownership: { createRequestedAt: NOW - 120_000 },
      byName: { kind: 'found', deployments: [deployment()] },
    }),
    expect: { kind: 'adopt', reason: 'CreateRecovered' },
  },
  {
    name: 'intent recorded, the only deployment of that name claimed by another object',
    reason: 'never take over a deployment another object owns',
    given: observed({
      ownership: { createRequestedAt: NOW - 120_000 },
      byName: { kind: 'found', deployments: [deployment()] },
      claims: { [ID]: 'team-b/bot' },
    }),
    expect: { kind: 'publish' },
    check: (action) =>
      expect(action).toMatchObject({
        state: { kind: 'NameConflict', message: expect.stringContaining('team-b/bot') },
        facts: { ownership: { uid: 'uid-a' } },
        refused: { reason: 'NameConflict' },
      }),
  },
  {
    name: 'intent recorded, the deployment of that name older than the intent',
    reason: 'created before we asked: not ours, and adoptExisting is off',
    given: observed({
      ownership: { createRequestedAt: NOW },
      byName: { kind: 'found', deployments: [deployment({ created_at: '2026-11-01T00:00:00Z' })] },
    }),
    expect: { kind: 'publish' },
    check: (action) => expect(action).toMatchObject({ state: { kind: 'NameConflict' } }),
  },
  {
    name: 'intent recorded, nothing of that name exists',
    reason: 'the create never landed: create',
    given: observed({
      ownership: { createRequestedAt: NOW - 5_000 },
      byName: { kind: 'found', deployments: [] },
    }),
    expect: { kind: 'create' },
  },
  {
    name: 'the name lookup failed',
    reason: 'without an answer there is no verdict: errorPolicy decides',
    given: observed({
      ownership: { createRequestedAt: NOW - 5_000 },
      byName: { kind: 'failed', error: { kind: 'Transient', message: 'HTTP 503' } },
    }),
    expect: { kind: 'fail', error: { kind: 'Transient', message: 'HTTP 503' } },
  },
  {
    name: 'adoptExisting with a free deployment of that name',
    reason: 'the user asked for it',
    given: observed({
      object: { adoptExisting: true },
      byName: { kind: 'found', deployments: [deployment()] },
    }),
    expect: { kind: 'adopt', reason: 'Adopted' },
  },
  {
    name: 'adoptExisting, the deployment owned by another object',
    reason: 'adoptExisting never takes a deployment from another object',
    given: observed({
      object: { adoptExisting: true },
      byName: { kind: 'found', deployments: [deployment()] },
      claims: { [ID]: 'team-b/bot' },
    }),
    expect: { kind: 'publish' },
    check: (action) => expect(action).toMatchObject({ state: { kind: 'NameConflict' } }),
  },
  {
    name: 'a well-formed deployment-id annotation (a hint), not yet verified',
    reason: 'hints are verified before use: observe that id first',
    given: observed({ object: { hintedDeploymentId: ID } }),
    expect: { kind: 'observeDeployment', id: ID },
  },
  {
    name: 'a hint verified: it exists and carries this name',
    reason: 'record it as owned; it serves the spec, so Deployed goes in the same write',
    given: observed({
      object: { hintedDeploymentId: ID },
      deployment: { kind: 'present', deployment: deployment() },
    }),
    expect: {
      kind: 'adopt',
      reason: 'Adopted',
      then: {
        kind: 'publish',
        state: { kind: 'Deployed', message: 'Revision r1 is deployed' },
        facts: { deployment: deployment(), ownership: { uid: 'uid-a', deploymentId: ID } },
        track: { id: ID, mode: 'steady' },
      },
    },
  },
  {
    name: 'a hint verified, its deployment running another image than the spec',
    reason:
      'the PATCH waits for the pass after the ownership record: nothing is sent for a deployment before it is recorded as owned',
    given: observed({
      object: { hintedDeploymentId: ID },
      deployment: {
        kind: 'present',
        deployment: deployment({ source_revision_config: { image_uri: 'registry.example/bot:0' } }),
      },
    }),
    expect: { kind: 'adopt', reason: 'Adopted' },
    check: (action) => expect(action).not.toHaveProperty('then'),
  },
  {
    name: 'a hint verified, the revision it runs not yet known',
    reason:
      'reading the revision is for the pass after the ownership record: the adoption writes ownership alone',
    given: observed({
      object: { hintedDeploymentId: ID },
      deployment: { kind: 'present', deployment: deployment({ active_revision_id: undefined }) },
    }),
    expect: { kind: 'adopt', reason: 'Adopted' },
    check: (action) => expect(action).not.toHaveProperty('then'),
  },
  {
    name: 'a hint pointing at a deployment of another name',
    reason: 'an annotation anyone may write is no proof: ignore it and create',
    given: observed({
      object: { hintedDeploymentId: OTHER_ID },
      deployment: { kind: 'present', deployment: deployment({ id: OTHER_ID, name: 'someone-else' }) },
    }),
    expect: { kind: 'create' },
  },
  {
    name: 'a hint pointing at a deployment another object owns',
    reason: 'one namespace must not take over another’s deployment through an annotation',
    given: observed({ object: { hintedDeploymentId: ID }, claims: { [ID]: 'team-b/bot' } }),
    expect: { kind: 'create' },
  },
  // ---- an owned deployment ----
  {
    name: 'owned deployment, not observed, settled object',
    reason: 'the poller’s resync is fresh enough for a Ready object',
    given: observed({ ownership: owned, status: readyStatus }),
    expect: { kind: 'observeDeployment', id: ID, maxAgeMs: t.resyncPeriodMs * 1.5 },
  },
  {
    name: 'owned deployment, spec changed',
    reason: 'a spec change wants a recent observation',
    given: observed({ ownership: owned, status: readyStatus, object: { generation: 2 } }),
    expect: { kind: 'observeDeployment', id: ID, maxAgeMs: t.inflightPollMs / 2 },
  },
  {
    name: 'reconcile-requested-at has a new value',
    reason: 'look now (a direct read), whatever the poller last saw',
    given: observed({ ownership: owned, status: readyStatus, object: { reconcileRequestedAt: 'now-1' } }),
    expect: { kind: 'observeDeployment', id: ID, maxAgeMs: 0 },
  },
  {
    name: 'reconcile-requested-at handled after the read',
    reason: 'echo the value in status; no new revision',
    given: observed({
      ownership: owned,
      status: readyStatus,
      object: { reconcileRequestedAt: 'now-1' },
      deployment: { kind: 'present', deployment: deployment() },
    }),
    expect: { kind: 'publish' },
    check: (action) =>
      expect(action).toMatchObject({ state: { kind: 'Deployed' }, facts: { handledReconcileAt: 'now-1' } }),
  },
  {
    name: 'waiting for the batched observation',
    reason: 'the poller wakes the key; no call of our own',
    given: observed({ ownership: owned, deployment: { kind: 'pending', retryAfterMs: 4_000 } }),
    expect: { kind: 'wait', requeueAfterMs: 4_000 },
  },
  {
    name: 'the observation failed (a 401 on the poller)',
    reason: 'errorPolicy decides; it is not the object’s fault',
    given: observed({
      ownership: owned,
      deployment: { kind: 'failed', error: { kind: 'Unauthorized', message: '401', status: 401 } },
    }),
    expect: { kind: 'fail' },
  },
  {
    name: 'the owned deployment is gone',
    reason: 'forget it; the next pass creates it again',
    given: observed({ ownership: owned, deployment: { kind: 'gone' } }),
    expect: { kind: 'forget', id: ID },
  },
  {
    name: 'the image differs',
    reason: 'patch the difference: one PATCH, one new revision',
    given: observed({
      ownership: owned,
      status: { ...readyStatus, observedGeneration: 1 },
      object: { generation: 2 },
      deployment: {
        kind: 'present',
        deployment: deployment({ source_revision_config: { image_uri: 'registry.example/bot:0' } }),
      },
    }),
    expect: {
      kind: 'patch',
      createsRevision: true,
      drift: false,
      patch: { source_revision_config: { image_uri: 'registry.example/bot:1' } },
    },
  },
  {
    name: 'the image differs although the spec did not change',
    reason: 'someone changed it outside the operator: re-apply and say so (drift)',
    given: observed({
      ownership: owned,
      status: readyStatus,
      deployment: {
        kind: 'present',
        deployment: deployment({ source_revision_config: { image_uri: 'registry.example/bot:0' } }),
      },
    }),
    expect: { kind: 'patch', drift: true },
  },
  {
    name: 'a refused update of this very spec',
    reason: 'no PATCH in a loop: Stalled until the spec changes or the re-check',
    given: observed({
      ownership: owned,
      status: readyStatus,
      object: { generation: 2 },
      deployment: {
        kind: 'present',
        deployment: deployment({ source_revision_config: { image_uri: 'registry.example/bot:0' } }),
      },
      refused: { specKey: '2||', reason: 'Rejected', message: 'HTTP 422', at: NOW, recheckFailures: 1 },
    }),
    expect: { kind: 'publish', requeueAfterMs: recheckDelayMs(1, t) },
  },
  {
    name: 'redeploy-at has a new value and nothing else changed',
    reason: 'one new revision per new value: resend the revision fields, record the value',
    given: observed({
      ownership: owned,
      status: readyStatus,
      object: { redeployAt: '2026-11-23T12:00:00Z' },
      deployment: { kind: 'present', deployment: deployment() },
    }),
    expect: {
      kind: 'patch',
      createsRevision: true,
      drift: false,
      patch: { source_revision_config: { image_uri: 'registry.example/bot:1' } },
    },
    check: (action) => expect(action).toMatchObject({ facts: { handledRedeployAt: '2026-11-23T12:00:00Z' } }),
  },
  {
    name: 'redeploy-at already handled',
    reason: 'the same value never rolls out twice',
    given: observed({
      ownership: owned,
      status: { ...readyStatus, lastHandledRedeployAt: 'v1' },
      object: { redeployAt: 'v1' },
      deployment: { kind: 'present', deployment: deployment() },
    }),
    expect: { kind: 'publish' },
    check: (action) => expect(action).toMatchObject({ state: { kind: 'Deployed' } }),
  },
  {
    name: 'a field PATCH cannot change',
    reason: 'no PATCH can make it: Stalled InvalidSpec, naming the field',
    given: observed({
      ownership: owned,
      deployment: {
        kind: 'present',
        deployment: deployment({ source_config: { listener_id: '44444444-4444-4444-8444-444444444444' } }),
      },
    }),
    expect: { kind: 'publish' },
    check: (action) =>
      expect(action).toMatchObject({
        state: { kind: 'InvalidSpec', message: expect.stringContaining('spec.sourceConfig.listenerId') },
      }),
  },
  {
    name: 'the deployment is being deleted outside the operator',
    reason: 'wait for it to go, then create again',
    given: observed({
      ownership: owned,
      deployment: { kind: 'present', deployment: deployment({ status: 'AWAITING_DELETE' }) },
    }),
    expect: { kind: 'publish', requeueAfterMs: t.inflightPollMs },
  },
  // ---- following the revision ----
  {
    name: 'the latest revision is the active one',
    reason: 'Deployed; the poller follows it at the resync pace',
    given: observed({ ownership: owned, deployment: { kind: 'present', deployment: deployment() } }),
    expect: { kind: 'publish', track: { id: ID, mode: 'steady' } },
    check: (action) =>
      expect(action).toMatchObject({
        state: { kind: 'Deployed' },
        facts: { latestRevisionStatus: 'DEPLOYED' },
      }),
  },
  {
    name: 'a revision in flight, its status unknown, the poll allowed',
    reason: 'only a revision GET shows a failure',
    given: observed({
      ownership: owned,
      deployment: { kind: 'present', deployment: deployment({ latest_revision_id: 'r2' }) },
    }),
    expect: { kind: 'observeRevision', deploymentId: ID, revisionId: 'r2' },
  },
  {
    name: 'a revision in flight, the poll not allowed (budget or pace)',
    reason: 'show it in progress and look again when the poll is due',
    given: observed({
      ownership: owned,
      deployment: { kind: 'present', deployment: deployment({ latest_revision_id: 'r2' }) },
      revisionPoll: { allowed: false, dueInMs: 5_000 },
    }),
    expect: { kind: 'publish', requeueAfterMs: 5_000, track: { id: ID, mode: 'inflight' } },
  },
  {
    name: 'the latest revision failed',
    reason: 'Stalled RevisionFailed, naming the revision still active',
    given: observed({
      ownership: owned,
      deployment: { kind: 'present', deployment: deployment({ latest_revision_id: 'r2' }) },
      knownRevisions: { r2: 'BUILD_FAILED' },
    }),
    expect: { kind: 'publish', track: { id: ID, mode: 'steady' } },
    check: (action) =>
      expect(action).toMatchObject({
        state: {
          kind: 'RevisionFailed',
          message: 'Revision r2 ended BUILD_FAILED; revision r1 is still active',
        },
      }),
  },
  // ---- spec.managementPolicy: ObserveOnly ----
  {
    name: 'observe only, nothing read yet, no id given',
    reason: 'the deployment is found by name: one list, no write',
    given: observed({ object: { observeOnly: true, hasFinalizer: false } }),
    expect: { kind: 'observeName', name: 'bot' },
  },
  {
    name: 'observe only, the deployment-id annotation gives the id',
    reason: 'the id is read directly (any observation since the last resync will do)',
    given: observed({ object: { observeOnly: true, hasFinalizer: false, hintedDeploymentId: ID } }),
    expect: { kind: 'observeDeployment', id: ID, maxAgeMs: t.resyncPeriodMs },
  },
  {
    name: 'observe only, the deployment is found by name',
    reason:
      'status mirrors it (Ready, Observed) and the poller follows it; no finalizer, no ownership record',
    given: observed({
      object: { observeOnly: true, hasFinalizer: false },
      byName: { kind: 'found', deployments: [deployment()] },
    }),
    expect: {
      kind: 'publish',
      state: {
        kind: 'Observed',
        message: `Observing deployment ${ID} (READY); spec.managementPolicy is ObserveOnly: no writes`,
      },
      track: { id: ID, mode: 'steady' },
    },
    check: (action) => {
      expect(action).toMatchObject({ facts: { deployment: { id: ID } } });
      expect(action).not.toHaveProperty('facts.ownership');
    },
  },
  {
    name: 'observe only, the annotated id names a deployment that exists',
    reason: 'mirrored like one found by name, whatever its name',
    given: observed({
      object: { observeOnly: true, hasFinalizer: false, hintedDeploymentId: ID },
      deployment: { kind: 'present', deployment: deployment({ name: 'built-by-ci' }) },
    }),
    expect: {
      kind: 'publish',
      state: { kind: 'Observed', message: expect.any(String) as unknown as string },
    },
  },
  {
    name: 'observe only, no deployment of that name',
    reason: 'nothing to mirror: DeploymentNotFound, the ids cleared, looked for again slowly; never a create',
    given: observed({
      object: { observeOnly: true, hasFinalizer: false },
      byName: { kind: 'found', deployments: [] },
      status: { deploymentId: ID },
    }),
    expect: {
      kind: 'publish',
      state: {
        kind: 'DeploymentNotFound',
        message:
          'spec.managementPolicy is ObserveOnly and the control plane has no deployment named "bot"; looking again later',
      },
      facts: { clearIds: true },
      requeueAfterMs: t.stalledRecheckMs,
    },
  },
  {
    name: 'observe only, the annotated id is gone',
    reason: 'nothing to mirror, and nothing to forget or recreate',
    given: observed({
      object: { observeOnly: true, hasFinalizer: false, hintedDeploymentId: ID },
      deployment: { kind: 'gone' },
    }),
    expect: {
      kind: 'publish',
      state: { kind: 'DeploymentNotFound', message: expect.any(String) as unknown as string },
    },
  },
  {
    name: 'observe only where adoption is not permitted',
    reason:
      'reading a deployment this object does not own follows the namespace rule of adoption: nothing is mirrored',
    given: observed({
      object: { observeOnly: true, hasFinalizer: false },
      adoptionForbidden: 'adoption is turned off',
      byName: { kind: 'found', deployments: [deployment()] },
    }),
    expect: {
      kind: 'publish',
      state: { kind: 'AdoptionNotAllowed', message: expect.any(String) as unknown as string },
    },
    check: (action) => expect(action).toMatchObject({ facts: { clearIds: true } }),
  },
  {
    name: 'observe only, the object once managed the deployment and still owns it',
    reason: 'the policy wins over ownership: read, never patch, whatever differs',
    given: observed({
      object: { observeOnly: true, generation: 3 },
      ownership: owned,
      byName: {
        kind: 'found',
        deployments: [deployment({ source_revision_config: { image_uri: 'other:9' } })],
      },
    }),
    expect: {
      kind: 'publish',
      state: { kind: 'Observed', message: expect.any(String) as unknown as string },
    },
  },
  {
    name: 'observe only, the Secret it would send is missing',
    reason: 'no request is built, so a missing Secret does not matter',
    given: observed({
      object: { observeOnly: true, hasFinalizer: false },
      spec: { kind: 'secretMissing', message: 'spec.secrets (A): Secret "s" not found' },
      byName: { kind: 'found', deployments: [deployment()] },
    }),
    expect: {
      kind: 'publish',
      state: { kind: 'Observed', message: expect.any(String) as unknown as string },
    },
  },
  {
    name: 'observe only and suspended',
    reason: 'suspension makes no call at all, not even a read',
    given: observed({ object: { observeOnly: true, suspend: true } }),
    expect: {
      kind: 'publish',
      state: { kind: 'Suspended', message: expect.any(String) as unknown as string },
    },
  },
  {
    name: 'deleting an observe-only object that kept the finalizer and ownership of a managed past',
    reason: 'ObserveOnly never deletes: release and leave the deployment, saying so',
    given: observed({ object: { deleting: true, observeOnly: true }, ownership: owned }),
    expect: {
      kind: 'release',
      event: {
        type: 'Normal',
        reason: 'Orphaned',
        message: expect.stringContaining('ObserveOnly') as unknown as string,
      },
    },
  },
  {
    name: 'after a restart, status already records the failure of the latest revision',
    reason: 'no revision GET: status is the memory that survives restarts',
    given: observed({
      ownership: owned,
      status: { latestRevisionId: 'r2', latestRevisionStatus: 'DEPLOY_FAILED' },
      deployment: { kind: 'present', deployment: deployment({ latest_revision_id: 'r2' }) },
    }),
    expect: { kind: 'publish' },
    check: (action) => expect(action).toMatchObject({ state: { kind: 'RevisionFailed' } }),
  },

  // ---- spec.export ----
  {
    name: 'spec.export names a free ConfigMap, the owned deployment is observed',
    reason: 'the facts are known: write them, owned by the object, and say so',
    given: observed({
      ownership: owned,
      deployment: { kind: 'present', deployment: exportedDeployment },
      export: { target: 'bot-agent', owned: [], foreign: false },
    }),
    expect: {
      kind: 'export',
      write: { op: 'create', name: 'bot-agent', data: exportedData },
      condition: {
        type: 'Exported',
        status: 'True',
        reason: 'Exported',
        message: expect.any(String) as unknown as string,
      },
    },
  },
  {
    name: 'spec.export, the deployment not observed yet',
    reason: 'no facts yet: the owned deployment is read first',
    given: observed({ ownership: owned, export: { target: 'bot-agent', owned: [], foreign: false } }),
    expect: { kind: 'observeDeployment', id: ID },
  },
  {
    name: 'spec.export, its ConfigMap holds another active revision',
    reason: 'the facts changed: replace it, guarded by the version read',
    given: observed({
      ownership: owned,
      deployment: { kind: 'present', deployment: exportedDeployment },
      export: {
        target: 'bot-agent',
        owned: [
          {
            name: 'bot-agent',
            uid: 'cm-1',
            resourceVersion: '7',
            data: { ...exportedData, ACTIVE_REVISION_ID: 'r0' },
          },
        ],
        foreign: false,
      },
    }),
    expect: {
      kind: 'export',
      write: { op: 'update', name: 'bot-agent', data: exportedData, resourceVersion: '7' },
    },
  },
  {
    name: 'spec.export, its ConfigMap and the condition up to date',
    reason: 'a settled pass writes no ConfigMap: the ladder goes on to the deployment',
    given: observed({
      ownership: owned,
      status: { conditions: [exportedCondition] },
      deployment: { kind: 'present', deployment: exportedDeployment },
      export: {
        target: 'bot-agent',
        owned: [{ name: 'bot-agent', uid: 'cm-1', resourceVersion: '7', data: exportedData }],
        foreign: false,
      },
    }),
    expect: { kind: 'publish' },
  },
  {
    name: 'spec.export names a ConfigMap the object did not create',
    reason: 'never written: the condition and a warning name the field and the rule',
    given: observed({
      ownership: owned,
      deployment: { kind: 'present', deployment: exportedDeployment },
      export: { target: 'billing', owned: [], foreign: true },
    }),
    expect: {
      kind: 'export',
      condition: {
        type: 'Exported',
        status: 'False',
        reason: 'ExportConflict',
        message: expect.stringContaining(
          'spec.export.configMapName: ConfigMap "billing" already exists',
        ) as unknown as string,
      },
      event: { type: 'Warning', reason: 'ExportConflict', message: expect.any(String) as unknown as string },
    },
    check: (action) => expect(action).not.toHaveProperty('write'),
  },
  {
    name: 'spec.export removed, the object still owns its ConfigMap',
    reason: 'only what the object owns is deleted (guarded by its version), and the condition goes',
    given: observed({
      ownership: owned,
      status: { conditions: [exportedCondition] },
      export: {
        owned: [{ name: 'bot-agent', uid: 'cm-1', resourceVersion: '7', data: exportedData }],
        foreign: false,
      },
    }),
    expect: {
      kind: 'export',
      write: { op: 'delete', name: 'bot-agent', uid: 'cm-1', resourceVersion: '7' },
      condition: null,
    },
  },
  {
    name: 'spec.export renamed',
    reason: "the ConfigMap of the old name is the object's: delete it before writing the new one",
    given: observed({
      ownership: owned,
      deployment: { kind: 'present', deployment: exportedDeployment },
      export: {
        target: 'bot-agent-v2',
        owned: [{ name: 'bot-agent', uid: 'cm-1', resourceVersion: '7', data: exportedData }],
        foreign: false,
      },
    }),
    expect: { kind: 'export', write: { op: 'delete', name: 'bot-agent', uid: 'cm-1', resourceVersion: '7' } },
    check: (action) => expect(action).not.toHaveProperty('condition'),
  },
];

decideTable('decide', (given: Observed) => decide(given, t), rows, {
  match: 'partial',
  // Every rung of the ladder decides some row: a rung added without its rows fails here.
  covers: { all: LADDER.map((rung) => rung.name), of: (given) => decideWithRung(given, t).rung },
});

describe('decide', () => {
  it('never sends a write for a suspended, invalid, name-losing or connection-refused object, whatever else is true', () => {
    const writes = new Set(['create', 'patch', 'delete', 'adopt', 'addFinalizer', 'forget']);
    const quiet = [
      observed({ object: { suspend: true }, ownership: owned, deployment: { kind: 'gone' } }),
      observed({
        object: { suspend: true, adoptExisting: true },
        byName: { kind: 'found', deployments: [deployment()] },
      }),
      observed({ spec: { kind: 'invalid', message: 'x' }, ownership: owned }),
      observed({ rival: 'team-b/bot', object: { hasFinalizer: false } }),
      observed({
        connectionRefused: { reason: 'ConnectionNotAllowed', message: 'x' },
        ownership: owned,
        deployment: { kind: 'gone' },
      }),
    ];
    for (const given of quiet) expect(writes.has(decide(given, t).kind)).toBe(false);
  });

  it('never sends a write for an observe-only object, whatever it owns, finds or lacks', () => {
    const writes = new Set(['create', 'patch', 'delete', 'adopt', 'addFinalizer', 'forget', 'smokeTest']);
    const quiet = [
      observed({ object: { observeOnly: true, hasFinalizer: false } }),
      observed({
        object: { observeOnly: true, hasFinalizer: false },
        byName: { kind: 'found', deployments: [] },
      }),
      observed({ object: { observeOnly: true }, ownership: owned, deployment: { kind: 'gone' } }),
      observed({
        object: { observeOnly: true, adoptExisting: true, hasFinalizer: false },
        byName: { kind: 'found', deployments: [deployment()] },
      }),
      observed({
        object: { observeOnly: true, redeployAt: 'now', hasFinalizer: false },
        ownership: owned,
        byName: { kind: 'found', deployments: [deployment({ latest_revision_id: 'r2' })] },
      }),
      observed({
        object: { observeOnly: true, deleting: true },
        ownership: owned,
        deployment: { kind: 'present', deployment: deployment() },
      }),
      observed({ object: { observeOnly: true, hasFinalizer: false }, ownership: { createRequestedAt: NOW } }),
    ];
    for (const given of quiet) expect(writes.has(decide(given, t).kind)).toBe(false);
  });
});

describe('specKey and the re-check delay', () => {
  it('changes with the generation, the Secret versions and the redeploy value', () => {
    const base = observed();
    const keys = new Set([
      specKey(base),
      specKey(observed({ object: { generation: 2 } })),
      specKey(observed({ spec: { kind: 'valid', desired, secretVersions: { keys: '7' } } })),
      specKey(observed({ object: { redeployAt: 'x' } })),
    ]);
    expect(keys.size).toBe(4);
  });

  it('doubles from two minutes and is capped at thirty', () => {
    expect([0, 1, 2, 3, 4, 10, 1_000].map((n) => recheckDelayMs(n, t) / 60_000)).toEqual([
      2, 4, 8, 16, 30, 30, 30,
    ]);
  });
});
