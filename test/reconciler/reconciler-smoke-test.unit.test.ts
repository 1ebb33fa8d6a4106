// The shell's side of spec.smokeTest, against fake ports: the call runs in the background
// (the pass returns before the agent answers, holding no worker), its end wakes the key,
// the next pass publishes the verdict with its event, and stopping aborts a call in flight.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { AgentCallResult } from '../../src/agentruntime/errors.js';
import type { WaitOutcome } from '../../src/agentruntime/client.js';
import { FINALIZER, type AgentDeploymentView } from '../../src/reconcilers/agentdeployment/object.js';
import { FleetPoller } from '../../src/reconcilers/agentdeployment/observation/fleet-poller.js';
import { ObservationCache } from '../../src/reconcilers/agentdeployment/observation/observation-cache.js';
import type {
  AgentCallPort,
  ControlPlanePort,
  KubePort,
} from '../../src/reconcilers/agentdeployment/ports.js';
import { AgentDeploymentReconciler } from '../../src/reconcilers/agentdeployment/reconciler.js';
import { AGENT_URL, DEPLOYMENT_ID, DESIRED, deployedWithUrl } from './support/smoke-test-fixtures.js';

const ID = DEPLOYMENT_ID;
const NOW = Date.parse('2026-11-23T12:00:00Z');
const KEY = 'secret-key-abcdef';
const URL = AGENT_URL;
const deployment = deployedWithUrl();

function setup() {
  let current: AgentDeploymentView = {
    metadata: { name: 'bot', namespace: 'team-a', uid: 'uid-a', generation: 1, finalizers: [FINALIZER] },
    spec: { smokeTest: { input: { messages: [{ role: 'user', content: 'ping' }] }, timeoutSeconds: 20 } },
    status: { observedGeneration: 1, ownership: { uid: 'uid-a', deploymentId: ID } },
  };
  const ok = <T>(value: T): Promise<{ ok: true; value: T }> => Promise.resolve({ ok: true, value });
  const unused = () => Promise.reject(new Error('not expected'));
  const controlPlane: ControlPlanePort = {
    createDeployment: unused,
    getDeployment: () => ok(deployment),
    listDeploymentsByIds: () => ok([deployment]),
    findDeploymentsByName: () => ok([]),
    patchDeployment: unused,
    deleteDeployment: unused,
    getRevision: unused,
    allowedRatePerSecond: () => 100,
    budgetHeadroom: () => 1,
    reserveCreate: () => Promise.resolve({ ok: true, value: { kind: 'CreateToken' } }),
  };
  const events: string[] = [];
  const kube: KubePort<AgentDeploymentView> = {
    get: () => current,
    getSecret: () => undefined,
    patchFinalizers: unused,
    patchStatus: (o, status) => {
      current = { ...o, status };
      return ok(current);
    },
    event: (_o, type, reason, message) => events.push(`${type} ${reason} ${message}`),
  };
  let answer: (result: AgentCallResult<WaitOutcome>) => void = () => {};
  const calls: AbortSignal[] = [];
  const agents: AgentCallPort = {
    runOnce: (_key, _call, signal) => {
      calls.push(signal);
      return new Promise((resolve) => {
        answer = resolve;
        signal.addEventListener('abort', () =>
          resolve({ ok: false, error: { kind: 'aborted', message: 'the call was aborted' } }),
        );
      });
    },
    redact: (_key, text) => text.split(KEY).join('[redacted]'),
  };
  const woken: string[] = [];
  const observations = new ObservationCache();
  observations.recordPresent(deployment, NOW);
  const poller = new FleetPoller({ controlPlane, cache: observations, enqueue: () => {}, now: () => NOW });
  const reconciler = new AgentDeploymentReconciler<AgentDeploymentView>({
    controlPlane,
    kube,
    fleet: { claimantsOf: () => [], ownerOf: () => undefined },
    observations,
    poller,
    specProblem: () => undefined,
    desiredState: () => DESIRED,
    deploymentName: () => 'bot',
    logger: pino({ level: 'silent' }),
    clock: { now: () => NOW },
    agents,
    // The agent's URL is on the control plane's own address: the connection's key may go there.
    agentTrust: {
      platformUrls: [new globalThis.URL(AGENT_URL).origin],
      agentHosts: [],
      tenantChosenEndpoints: false,
    },
    wake: (key) => woken.push(key),
  });
  const run = () => reconciler.reconcile('team-a/bot', new AbortController().signal);
  const ready = () => current.status?.conditions?.find((c) => c.type === 'Ready');
  return {
    run,
    reconciler,
    calls,
    answer: (r: AgentCallResult<WaitOutcome>) => answer(r),
    woken,
    events,
    ready,
    current: () => current,
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the smoke test in the shell', () => {
  it('returns before the agent answers; the answer wakes the key and the next pass publishes Ready', async () => {
    const s = setup();
    const result = await s.run();
    expect(s.calls).toHaveLength(1);
    expect(result.kind === 'requeueAfter' && result.ms > 0).toBe(true);
    expect(s.ready()).toMatchObject({ status: 'False', reason: 'SmokeTestPending' });
    // A second pass while the call runs starts no second call.
    await s.run();
    expect(s.calls).toHaveLength(1);

    s.answer({ ok: true, value: { values: { messages: [{ type: 'ai', content: 'pong' }] } } });
    await settle();
    expect(s.woken).toEqual(['team-a/bot']);
    await s.run();
    expect(s.ready()).toMatchObject({ status: 'True', reason: 'Deployed' });
    expect(s.current().status?.url).toBe(URL);
    expect(s.events.filter((e) => e.includes('SmokeTest'))).toEqual([
      'Normal SmokeTestPassed Revision r1: the agent answered "pong"',
    ]);
    await s.run();
    expect(s.calls).toHaveLength(1);
  });

  it('redacts the key from a quoted failure before it reaches status or events', async () => {
    const s = setup();
    await s.run();
    s.answer({ ok: false, error: { kind: 'forbidden', status: 403, message: `HTTP 403: bad key ${KEY}` } });
    await settle();
    await s.run();
    expect(s.ready()?.reason).toBe('SmokeTestFailed');
    expect(JSON.stringify(s.current().status)).not.toContain(KEY);
    expect(s.events.join('\n')).not.toContain(KEY);
    expect(s.events.filter((e) => e.includes('SmokeTest'))).toEqual([
      'Warning SmokeTestFailed Revision r1: forbidden: HTTP 403: bad key [redacted]',
    ]);
  });

  it('stop() aborts a call in flight and drops its outcome', async () => {
    const s = setup();
    await s.run();
    s.reconciler.stop();
    expect(s.calls[0]?.aborted).toBe(true);
    await settle();
    expect(s.woken).toEqual([]);
  });
});
