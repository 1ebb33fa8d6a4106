// The I/O shell against scripted fake ports: it performs what decide asks, writes status
// only when it changed, turns a 409 into an immediate requeue, stops at an aborted signal,
// and skips an object it cannot understand without a single call.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Deployment, DeploymentCreateRequest } from '../../src/controlplane/models/index.js';
import {
  DEPLOYMENT_ID_ANNOTATION,
  FINALIZER,
  type AgentDeploymentView,
} from '../../src/reconcilers/agentdeployment/object.js';
import { FleetPoller } from '../../src/reconcilers/agentdeployment/observation/fleet-poller.js';
import { ObservationCache } from '../../src/reconcilers/agentdeployment/observation/observation-cache.js';
import type {
  ControlPlaneLane,
  ControlPlanePort,
  KubePort,
  LaneResolution,
  NameCatalogPort,
  ResolvedIds,
} from '../../src/reconcilers/agentdeployment/ports.js';
import { AgentDeploymentReconciler } from '../../src/reconcilers/agentdeployment/reconciler.js';
import type { SecretSource } from '../../src/reconcilers/agentdeployment/secrets.js';
import type { WriteOutcome } from '../../src/runtime/reconcile/object-port.js';
import { awaitChange, requeueAfter, requeueNow } from '../../src/runtime/reconcile/result.js';

const ID = '11111111-1111-4111-8111-111111111111';
const NOW = Date.parse('2026-11-23T12:00:00Z');

const request: DeploymentCreateRequest = {
  name: 'bot',
  source: 'external_container',
  source_config: { listener_id: '33333333-3333-4333-8333-333333333333' },
  source_revision_config: { image_uri: 'registry.example/bot:1' },
  secrets: [],
};

function deployment(): Deployment {
  return {
    ...request,
    id: ID,
    tenant_id: '00000000-0000-4000-8000-000000000000',
    created_at: '2026-11-23T11:59:00Z',
    updated_at: '2026-11-23T11:59:00Z',
    status: 'READY',
    latest_revision_id: 'r1',
    active_revision_id: 'r1',
  } as Deployment;
}

function object(overrides: Partial<AgentDeploymentView['metadata']> = {}): AgentDeploymentView {
  return {
    metadata: {
      name: 'bot',
      namespace: 'team-a',
      uid: 'uid-a',
      generation: 1,
      resourceVersion: '1',
      creationTimestamp: '2026-11-23T11:00:00Z',
      finalizers: [FINALIZER],
      ...overrides,
    },
    spec: {},
  };
}

const ok = <T>(value: T): Promise<{ ok: true; value: T }> => Promise.resolve({ ok: true, value });

/** A control plane that answers every call and records it in `cpCalls`. */
function recordingPort(cpCalls: string[]): ControlPlanePort {
  return {
    createDeployment: () => (cpCalls.push('POST'), ok(deployment())),
    getDeployment: () => (cpCalls.push('GET'), ok(deployment())),
    listDeploymentsByIds: () => (cpCalls.push('LIST'), ok([deployment()])),
    findDeploymentsByName: () => (cpCalls.push('FIND'), ok([])),
    patchDeployment: () => (cpCalls.push('PATCH'), ok(deployment())),
    deleteDeployment: () => (cpCalls.push('DELETE'), ok(undefined)),
    getRevision: () => {
      cpCalls.push('REVISION');
      return Promise.resolve({ ok: false, error: { kind: 'NotFound', message: 'x' } });
    },
    allowedRatePerSecond: () => 100,
    budgetHeadroom: () => 1,
    reserveCreate: () => Promise.resolve({ ok: true, value: { kind: 'CreateToken' } }),
  };
}

/** A lane of its own (port, cache, poller) whose calls are recorded in `cpCalls`. */
function recordingLane(id: string, cpCalls: string[]): ControlPlaneLane {
  const controlPlane = recordingPort(cpCalls);
  const observations = new ObservationCache();
  const poller = new FleetPoller({ controlPlane, cache: observations, enqueue: () => {}, now: () => NOW });
  return { id, controlPlane, observations, poller };
}

function setup(
  start: AgentDeploymentView,
  options: {
    statusWrite?: () => WriteOutcome<AgentDeploymentView>;
    connection?: (object: AgentDeploymentView) => LaneResolution;
    namedIds?: { listener?: string };
    desired?: (ids: ResolvedIds) => DeploymentCreateRequest;
    getSecret?: (name: string) => SecretSource | undefined;
    reserveCreate?: ControlPlanePort['reserveCreate'];
    /** Replaces the port's finalizer write (default: the object as written becomes current). */
    patchFinalizers?: KubePort<AgentDeploymentView>['patchFinalizers'];
  } = {},
) {
  let current = start;
  /** The reconciler's clock: passes run at NOW plus this (advance it to let time pass). */
  const elapsed = { ms: 0 };
  const cpCalls: string[] = [];
  const statusWrites: unknown[] = [];
  const events: string[] = [];
  /** The revisions counted as finished (agent_operator_revisions_total). */
  const revisionsFinished: string[] = [];
  /** How often a pass read the budget's headroom. */
  const headroomReads = { count: 0 };
  const controlPlane = {
    ...recordingPort(cpCalls),
    budgetHeadroom: () => {
      headroomReads.count += 1;
      return 1;
    },
    ...(options.reserveCreate === undefined ? {} : { reserveCreate: options.reserveCreate }),
  };
  const kube: KubePort<AgentDeploymentView> = {
    get: () => current,
    getSecret: (_namespace, name) => options.getSecret?.(name),
    patchFinalizers:
      options.patchFinalizers ??
      ((o, finalizers) => {
        current = { ...o, metadata: { ...o.metadata, finalizers: [...finalizers] } };
        return ok(current);
      }),
    patchStatus: (o, status) => {
      statusWrites.push(status);
      const scripted = options.statusWrite?.();
      if (scripted) return Promise.resolve(scripted);
      current = { ...o, status };
      return ok(current);
    },
    event: (_o, type, reason) => events.push(`${type} ${reason}`),
  };
  const observations = new ObservationCache();
  const poller = new FleetPoller({ controlPlane, cache: observations, enqueue: () => {}, now: () => NOW });
  const reconciler = new AgentDeploymentReconciler<AgentDeploymentView>({
    controlPlane,
    kube,
    fleet: { claimantsOf: () => [], ownerOf: () => undefined },
    observations,
    poller,
    specProblem: (o) =>
      (o.spec as { broken?: boolean }).broken ? 'spec.secrets.0.valueFrom: Required' : undefined,
    desiredState: (_o, _secrets, ids) => options.desired?.(ids) ?? request,
    deploymentName: () => 'bot',
    logger: pino({ level: 'silent' }),
    clock: { now: () => NOW + elapsed.ms },
    metrics: { revisionFinished: (state) => revisionsFinished.push(state) },
    ...(options.connection === undefined ? {} : { connection: options.connection }),
    ...(options.namedIds === undefined ? {} : { namedIds: () => options.namedIds ?? {} }),
  });
  const run = (signal = new AbortController().signal) => reconciler.reconcile('team-a/bot', signal);
  return {
    run,
    cpCalls,
    statusWrites,
    events,
    revisionsFinished,
    current: () => current,
    observations,
    poller,
    elapsed,
    headroomReads,
  };
}

/** An object created and deployed (its deployment observed READY), after the two passes that settle it. */
async function settledDeployed(options: Parameters<typeof setup>[1] = {}) {
  const s = setup(object(), options);
  s.observations.recordPresent(deployment(), NOW);
  await s.run();
  await s.run();
  return s;
}

describe('AgentDeploymentReconciler (the shell)', () => {
  it('records the create intent in status before the POST, then the id, keyed by uid', async () => {
    const s = setup(object());
    await s.run();
    expect(s.cpCalls).toEqual(['POST']);
    expect(s.statusWrites[0]).toMatchObject({
      ownership: { uid: 'uid-a', createRequestedAt: '2026-11-23T12:00:00.000Z' },
    });
    expect(s.current().status?.ownership).toEqual({ uid: 'uid-a', deploymentId: ID });
    expect(s.events).toEqual(['Normal Created']);
  });

  it('a new object gets its finalizer and then its create in the same pass, not behind every other key in the queue', async () => {
    const s = setup(object({ finalizers: [] }));
    await s.run();
    expect(s.current().metadata.finalizers).toEqual([FINALIZER]);
    expect(s.cpCalls).toEqual(['POST']);
    expect(s.statusWrites[0]).toMatchObject({ ownership: { uid: 'uid-a', createRequestedAt: expect.any(String) } });
    expect(s.current().status?.ownership).toEqual({ uid: 'uid-a', deploymentId: ID });
  });

  it('a finalizer write the port does not show yet ends the pass with a requeue: it is never written twice in one pass', async () => {
    let patches = 0;
    const s = setup(object({ finalizers: [] }), {
      patchFinalizers: (o) => {
        patches += 1;
        // The write succeeded, but what the port serves next still lacks it (as a cache would).
        return ok({ ...o, metadata: { ...o.metadata, finalizers: [FINALIZER] } });
      },
    });
    expect(await s.run()).toEqual(requeueNow);
    expect(patches).toBe(1);
    expect(s.cpCalls).toEqual([]);
  });

  it('a create the budget refuses now writes no intent: no POST, one Throttled status, back at its place in line', async () => {
    let throttled = true;
    const s = setup(object(), {
      reserveCreate: () =>
        Promise.resolve(
          throttled
            ? {
                ok: false,
                error: { kind: 'Throttled', message: 'no token for this create now', retryAfterMs: 1_500 },
              }
            : { ok: true, value: { kind: 'CreateToken' } },
        ),
    });
    expect(await s.run()).toEqual({ kind: 'requeueAfter', ms: 1_500 });
    expect(s.cpCalls).toEqual([]);
    expect(s.statusWrites).toHaveLength(1);
    expect(s.current().status?.ownership?.createRequestedAt).toBeUndefined();
    expect(s.current().status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'Throttled',
    });
    // The same answer on the next pass changes nothing, so nothing is written.
    s.elapsed.ms = 1_500;
    expect(await s.run()).toEqual({ kind: 'requeueAfter', ms: 1_500 });
    expect(s.statusWrites).toHaveLength(1);
    throttled = false;
    s.elapsed.ms = 3_000;
    await s.run();
    expect(s.cpCalls).toEqual(['POST']);
    expect(s.current().status?.ownership).toEqual({ uid: 'uid-a', deploymentId: ID });
  });

  it('a throttled create woken before its place in line comes keeps that place: no second place at the end', async () => {
    let reservations = 0;
    const s = setup(object(), {
      reserveCreate: () => {
        reservations += 1;
        return Promise.resolve(
          reservations === 1
            ? { ok: false, error: { kind: 'Throttled', message: 'no token for this create now', retryAfterMs: 1_500 } }
            : { ok: true, value: { kind: 'CreateToken' } },
        );
      },
    });
    expect(await s.run()).toEqual({ kind: 'requeueAfter', ms: 1_500 });
    // Woken early (its own finalizer's watch event, an annotation): it waits for the rest of its wait.
    s.elapsed.ms = 1_000;
    expect(await s.run()).toEqual({ kind: 'requeueAfter', ms: 500 });
    expect(reservations).toBe(1);
    expect(s.statusWrites).toHaveLength(1);
    s.elapsed.ms = 1_500;
    await s.run();
    expect(reservations).toBe(2);
    expect(s.cpCalls).toEqual(['POST']);
  });

  it('writes nothing when a pass finds nothing new (no identical status lines for kubectl get -w)', async () => {
    const s = await settledDeployed();
    const writes = s.statusWrites.length;
    await s.run();
    await s.run();
    expect(s.statusWrites).toHaveLength(writes);
    expect(s.events.filter((e) => e === 'Normal Deployed')).toHaveLength(1);
    expect(s.revisionsFinished).toEqual(['DEPLOYED']);
  });

  it('a pass over a deployed object does not read the budget: only a revision in progress may want a poll', async () => {
    const s = await settledDeployed();
    s.headroomReads.count = 0;
    // Past any revision poll's pace: the poll is due, but a deployed revision has none to make.
    s.elapsed.ms += 10 * 60_000;
    await s.run();
    expect(s.cpCalls.filter((call) => call === 'REVISION')).toHaveLength(0);
    expect(s.headroomReads.count).toBe(0);
  });

  it('a revision in progress still reads the budget and polls the revision when its pace allows', async () => {
    const s = await settledDeployed();
    s.headroomReads.count = 0;
    // A new revision starts: the next pass past the poll's pace asks the budget, then the revision.
    s.elapsed.ms += 10 * 60_000;
    s.observations.recordPresent({ ...deployment(), latest_revision_id: 'r2' }, NOW + s.elapsed.ms);
    await s.run();
    expect(s.headroomReads.count).toBe(1);
    expect(s.cpCalls).toContain('REVISION');
  });

  it('adopts a verified hint and publishes what it then owes in one status write', async () => {
    const hinted = object({ annotations: { [DEPLOYMENT_ID_ANNOTATION]: ID } });
    const s = setup(hinted);
    // The batched poller has read the hinted id (the pass does not wait for it here).
    s.observations.recordPresent(deployment(), NOW);
    let result = await s.run();
    for (let passes = 1; result !== awaitChange && passes < 5; passes += 1) result = await s.run();
    expect(result).toEqual(awaitChange);
    expect(s.cpCalls).not.toContain('POST');
    expect(s.statusWrites).toHaveLength(1);
    const status = s.current().status;
    expect(status?.ownership).toEqual({ uid: 'uid-a', deploymentId: ID });
    expect(status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
    expect(status).toMatchObject({ deploymentId: ID, activeRevisionId: 'r1', observedGeneration: 1 });
    // The revision ended before this object took the deployment over: the adoption's own
    // event tells it, and no rollout is counted (an upgraded operator adopting 10,000 objects
    // wrote 10,000 Deployed events and counted 10,000 rollouts that never happened here).
    expect(s.events).toEqual(['Normal Adopted']);
    expect(s.revisionsFinished).toEqual([]);
  });

  it('requeues at once, without backoff, when a status write meets a 409', async () => {
    const s = setup(object(), {
      statusWrite: () => ({ ok: false, reason: 'Conflict', message: 'HTTP 409', status: 409 }),
    });
    expect(await s.run()).toEqual(requeueNow);
    // The guarded intent write failed: nothing was sent.
    expect(s.cpCalls).toEqual([]);
  });

  it('makes no call and no write once its signal is aborted (the lease is lost)', async () => {
    const s = setup(object());
    const aborted = new AbortController();
    aborted.abort();
    expect(await s.run(aborted.signal)).toEqual(awaitChange);
    expect(s.cpCalls).toEqual([]);
    expect(s.statusWrites).toEqual([]);
  });

  it('skips an object it cannot understand: Stalled InvalidSpec, one Warning, zero calls', async () => {
    const broken = { ...object(), spec: { broken: true } } as AgentDeploymentView;
    const s = setup(broken);
    expect(await s.run()).toEqual(awaitChange);
    await s.run();
    expect(s.cpCalls).toEqual([]);
    expect(s.current().status?.conditions?.find((c) => c.type === 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'InvalidSpec',
      message: 'spec.secrets.0.valueFrom: Required',
    });
    expect(s.events).toEqual(['Warning InvalidSpec']);
  });
});

describe("AgentDeploymentReconciler: the lane of the object's connection", () => {
  it('sends every call through the lane of its connection, none through the default', async () => {
    const euCalls: string[] = [];
    const eu = recordingLane('eu-key@eu', euCalls);
    const s = setup(object(), { connection: () => ({ ok: true, lane: eu }) });
    await s.run();
    expect(euCalls).toEqual(['POST']);
    expect(eu.poller.trackedCount).toBe(1);
    expect(s.cpCalls).toEqual([]);
    expect(s.poller.trackedCount).toBe(0);
  });

  it.each(['ConnectionNotFound', 'ConnectionNotReady', 'ConnectionNotAllowed'] as const)(
    'a refused connection (%s) is Stalled with its reason and message, zero calls anywhere',
    async (reason) => {
      const s = setup(object(), {
        connection: () => ({ ok: false, reason, message: 'PlatformConnection team-a/eu is not usable' }),
      });
      expect(await s.run()).toEqual(requeueAfter(60_000));
      expect(s.cpCalls).toEqual([]);
      expect(s.current().status?.conditions?.find((c) => c.type === 'Stalled')).toMatchObject({
        status: 'True',
        reason,
        message: 'spec.connectionRef: PlatformConnection team-a/eu is not usable',
      });
      expect(s.events).toEqual([`Warning ${reason}`]);
    },
  );

  it('moving to another connection stops the old lane polling the key', async () => {
    const usCalls: string[] = [];
    const us = recordingLane('us-key@us', usCalls);
    const eu = recordingLane('eu-key@eu', []);
    let lane = us;
    const s = setup(object(), { connection: () => ({ ok: true, lane }) });
    await s.run();
    expect(us.poller.trackedCount).toBe(1);
    lane = eu;
    await s.run();
    expect(us.poller.trackedCount).toBe(0);
  });
});

describe('AgentDeploymentReconciler: listener and integration names', () => {
  const LISTENERS: Record<string, string> = { 'eu-cluster': '44444444-4444-4444-8444-444444444444' };
  function namedLane(id: string, cpCalls: string[]): ControlPlaneLane {
    const names: NameCatalogPort = {
      listenerId: (name) => {
        cpCalls.push('LISTENERS');
        const found = LISTENERS[name];
        return Promise.resolve(
          found === undefined
            ? { ok: false, unknown: `no listener named "${name}"; the workspace has "eu-cluster"` }
            : { ok: true, id: found },
        );
      },
      integrationId: () => Promise.resolve({ ok: false, unknown: 'none' }),
    };
    return { ...recordingLane(id, cpCalls), names };
  }

  it("sends the id the name resolves to on the object's own connection", async () => {
    const euCalls: string[] = [];
    const eu = namedLane('eu-key@eu', euCalls);
    const sent: ResolvedIds[] = [];
    const s = setup(object(), {
      connection: () => ({ ok: true, lane: eu }),
      namedIds: { listener: 'eu-cluster' },
      desired: (ids) => {
        sent.push(ids);
        return { ...request, source_config: { listener_id: ids.listenerId ?? '' } };
      },
    });
    await s.run();
    expect(sent.at(-1)).toEqual({ listenerId: LISTENERS['eu-cluster'] });
    expect(euCalls).toEqual(['LISTENERS', 'POST']);
    expect(s.cpCalls).toEqual([]);
  });

  it('an unknown name is Stalled InvalidSpec naming the listeners that exist, and nothing is created', async () => {
    const euCalls: string[] = [];
    const s = setup(object(), {
      connection: () => ({ ok: true, lane: namedLane('eu-key@eu', euCalls) }),
      namedIds: { listener: 'us-cluster' },
    });
    expect(await s.run()).toEqual(requeueAfter(2 * 60_000));
    expect(euCalls).toEqual(['LISTENERS']);
    expect(s.current().status?.conditions?.find((c) => c.type === 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'InvalidSpec',
      message:
        'spec.sourceConfig.listenerRef.name: no listener named "us-cluster"; the workspace has "eu-cluster"',
    });
  });
});

describe('AgentDeploymentReconciler: the spec memo and Secret values', () => {
  it('keeps the desired request while its Secret stands, and lets it go (with its values) when the Secret is gone', async () => {
    const keys: SecretSource = { metadata: { resourceVersion: '7' }, data: { token: 'czNjcmV0' } };
    let secret: SecretSource | undefined = keys;
    let built = 0;
    const referencing = {
      ...object(),
      spec: { secrets: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'keys', key: 'token' } } }] },
    } as AgentDeploymentView;
    const s = setup(referencing, {
      getSecret: (name) => (name === 'keys' ? secret : undefined),
      desired: () => {
        built += 1;
        return request;
      },
    });
    s.observations.recordPresent(deployment(), NOW);
    await s.run();
    await s.run();
    const settled = built;
    await s.run();
    expect(built).toBe(settled);
    secret = undefined;
    await s.run();
    expect(s.current().status?.conditions?.find((c) => c.type === 'Ready')?.reason).toBe('SecretNotFound');
    // The same Secret version again: the request is built anew, nothing of the old one was held.
    secret = keys;
    await s.run();
    expect(built).toBe(settled + 1);
  });
});
