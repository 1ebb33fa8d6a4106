// A create the control plane refuses, through the shell against scripted fake ports. The
// verdict (NameConflict or Rejected) is decide's: the shell remembers the refusal, and the
// next decide asks for the one name lookup. What the object and the control plane see is
// what it was when the shell decided it: in one pass, one POST, one lookup, two status writes
// (the intent, the verdict), one Warning, and the re-check two minutes later.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Deployment, DeploymentCreateRequest } from '../../src/controlplane/models/index.js';
import { FINALIZER, type AgentDeploymentView } from '../../src/reconcilers/agentdeployment/object.js';
import { FleetPoller } from '../../src/reconcilers/agentdeployment/observation/fleet-poller.js';
import { ObservationCache } from '../../src/reconcilers/agentdeployment/observation/observation-cache.js';
import type { ControlPlanePort, KubePort, Outcome } from '../../src/reconcilers/agentdeployment/ports.js';
import { AgentDeploymentReconciler } from '../../src/reconcilers/agentdeployment/reconciler.js';
import { requeueAfter, type ReconcileResult } from '../../src/runtime/reconcile/result.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const TWO_MINUTES = 120_000;

const request: DeploymentCreateRequest = {
  name: 'bot',
  source: 'external_container',
  source_config: { listener_id: '33333333-3333-4333-8333-333333333333' },
  source_revision_config: { image_uri: 'registry.example/bot:1' },
  secrets: [],
};

const someoneElses: Deployment = {
  ...request,
  id: '22222222-2222-4222-8222-222222222222',
  tenant_id: '00000000-0000-4000-8000-000000000000',
  created_at: '2026-11-20T00:00:00Z',
  updated_at: '2026-11-20T00:00:00Z',
  status: 'READY',
  latest_revision_id: 'r1',
  active_revision_id: 'r1',
};

const ok = <T>(value: T): Promise<Outcome<T>> => Promise.resolve({ ok: true, value });

function setup(byName: Outcome<Deployment[]>) {
  let now = NOW;
  let current: AgentDeploymentView = {
    metadata: {
      name: 'bot',
      namespace: 'team-a',
      uid: 'uid-a',
      generation: 1,
      resourceVersion: '1',
      creationTimestamp: '2026-11-23T11:00:00Z',
      finalizers: [FINALIZER],
    },
    spec: {},
  };
  const cpCalls: string[] = [];
  const statusWrites: unknown[] = [];
  const events: string[] = [];
  const refuse = (): Promise<Outcome<never>> =>
    Promise.resolve({
      ok: false,
      error: { kind: 'Terminal', message: 'HTTP 400: listener not offered', status: 400 },
    });
  const controlPlane: ControlPlanePort = {
    createDeployment: () => (cpCalls.push('POST'), refuse()),
    getDeployment: () => (cpCalls.push('GET'), refuse()),
    listDeploymentsByIds: () => (cpCalls.push('LIST'), ok([])),
    findDeploymentsByName: () => (cpCalls.push('FIND'), Promise.resolve(byName)),
    patchDeployment: () => (cpCalls.push('PATCH'), refuse()),
    deleteDeployment: () => (cpCalls.push('DELETE'), ok(undefined)),
    getRevision: () => (cpCalls.push('REVISION'), refuse()),
    allowedRatePerSecond: () => 100,
    budgetHeadroom: () => 1,
    reserveCreate: () => Promise.resolve({ ok: true, value: { kind: 'CreateToken' } }),
  };
  const written = <T>(value: T): Promise<{ ok: true; value: T }> => Promise.resolve({ ok: true, value });
  const kube: KubePort<AgentDeploymentView> = {
    get: () => current,
    getSecret: () => undefined,
    patchFinalizers: (o, finalizers) => {
      current = { ...o, metadata: { ...o.metadata, finalizers: [...finalizers] } };
      return written(current);
    },
    patchStatus: (o, status) => {
      statusWrites.push(status);
      current = { ...o, status };
      return written(current);
    },
    event: (_o, type, reason) => events.push(`${type} ${reason}`),
  };
  const observations = new ObservationCache();
  const poller = new FleetPoller({ controlPlane, cache: observations, enqueue: () => {}, now: () => now });
  const reconciler = new AgentDeploymentReconciler<AgentDeploymentView>({
    controlPlane,
    kube,
    fleet: { claimantsOf: () => [], ownerOf: () => undefined },
    observations,
    poller,
    specProblem: () => undefined,
    desiredState: () => request,
    deploymentName: () => 'bot',
    logger: pino({ level: 'silent' }),
    clock: { now: () => now },
  });
  /** One pass, as the controller runs it. */
  const run = (): Promise<ReconcileResult> =>
    reconciler.reconcile('team-a/bot', new AbortController().signal);
  const stalled = () => current.status?.conditions?.find((condition) => condition.type === 'Stalled');
  const advance = (ms: number) => (now += ms);
  return { run, cpCalls, statusWrites, events, stalled, current: () => current, advance };
}

describe('a create the control plane refuses', () => {
  it('is NameConflict when the lookup finds the name taken: one POST, one lookup, the intent cleared', async () => {
    const s = setup({ ok: true, value: [someoneElses] });
    expect(await s.run()).toEqual(requeueAfter(TWO_MINUTES));
    expect(s.cpCalls).toEqual(['POST', 'FIND']);
    expect(s.stalled()).toMatchObject({
      status: 'True',
      reason: 'NameConflict',
      message:
        'A deployment named "bot" already exists in the tenant and is not managed by this object; set spec.adoptExisting: true to manage it, or choose another spec.name',
    });
    expect(s.statusWrites).toHaveLength(2);
    expect(s.current().status?.ownership).toEqual({ uid: 'uid-a' });
    expect(s.events).toEqual(['Warning NameConflict']);
  });

  it('is Rejected with the server’s reason when the name is free', async () => {
    const s = setup({ ok: true, value: [] });
    expect(await s.run()).toEqual(requeueAfter(TWO_MINUTES));
    expect(s.cpCalls).toEqual(['POST', 'FIND']);
    expect(s.stalled()).toMatchObject({
      reason: 'Rejected',
      message: 'The control plane rejected the deployment: HTTP 400: listener not offered',
    });
    expect(s.statusWrites).toHaveLength(2);
    expect(s.events).toEqual(['Warning Rejected']);
  });

  it('is Rejected with the server’s reason when the lookup fails, without the error policy', async () => {
    const s = setup({ ok: false, error: { kind: 'Transient', message: 'reset' } });
    expect(await s.run()).toEqual(requeueAfter(TWO_MINUTES));
    expect(s.cpCalls).toEqual(['POST', 'FIND']);
    expect(s.stalled()).toMatchObject({ reason: 'Rejected' });
  });

  it('sends nothing more until the re-check is due, then once more, and waits twice as long', async () => {
    const s = setup({ ok: true, value: [] });
    await s.run();
    s.advance(TWO_MINUTES - 1);
    expect(await s.run()).toEqual(requeueAfter(1));
    expect(s.cpCalls).toEqual(['POST', 'FIND']);
    s.advance(1);
    expect(await s.run()).toEqual(requeueAfter(2 * TWO_MINUTES));
    expect(s.cpCalls).toEqual(['POST', 'FIND', 'POST', 'FIND']);
    // The re-check passed through Creating (its intent), so its refusal is said again, once.
    expect(s.events).toEqual(['Warning Rejected', 'Warning Rejected']);
  });
});
