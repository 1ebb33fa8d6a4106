// spec.smokeTest end to end against both emulators: the operator calls the deployed agent
// through its runtime (the control-plane emulator serves one per deployment) and Ready
// waits for the verdict. The runtime's own call counts (/_emulator/agent-calls) show how
// many calls the operator made, and with which key.
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../../src/api/agentdeployment/index.js';
import { AGENT_DEPLOYMENTS } from '../../src/operator/operator.js';
import {
  API_KEY,
  NAMESPACE,
  Stack,
  condition,
  containerAgent,
  isReady,
  type AgentDeploymentObject,
} from './harness.js';

interface AgentCalls {
  total: number;
  calls: Array<{
    deployment_id: string;
    route: string;
    status: number;
    key_fingerprint: string | null;
    count: number;
  }>;
}
type WithSmokeTest = AgentDeploymentObject & {
  status?: AgentDeploymentObject['status'] & {
    url?: string;
    customUrl?: string;
    smokeTest?: { revisionId: string; specHash: string; result: string; message: string };
  };
};

const PING = { input: { messages: [{ role: 'user', content: 'ping' }] }, expect: { contains: 'ping' } };
const KEY_FINGERPRINT = createHash('sha256').update(API_KEY).digest('hex').slice(0, 8);

let stack: Stack;
let listenerId: string;

async function start(): Promise<void> {
  stack = await Stack.start({
    operator: { resyncPeriodMs: 1_000 },
    reconciler: { smokeTestRetryMs: 100, smokeTestRetryMaxMs: 400 },
  });
  listenerId = await stack.listenerId();
}
afterEach(async () => {
  await stack.close();
});

async function runWaitCalls(): Promise<AgentCalls['calls']> {
  const calls = await stack.admin<AgentCalls>('GET', '/agent-calls');
  return calls.calls.filter((call) => call.route === '/runs/wait');
}
const sum = (calls: AgentCalls['calls']) => calls.reduce((total, call) => total + call.count, 0);

/** Asks for a reconcile and waits until it was handled: later passes have run. */
async function reconcileOnce(name: string): Promise<void> {
  const at = new Date().toISOString();
  await stack.client.mergePatch(AGENT_DEPLOYMENTS, NAMESPACE, name, {
    metadata: { annotations: { [ANNOTATIONS.reconcileRequestedAt]: at } },
  });
  await stack.waitFor(name, (o) => o.status?.lastHandledReconcileAt === at, 'reconciled on request');
}

describe('spec.smokeTest', () => {
  it('calls each deployed revision exactly once with the key and the scheme, and only then is Ready', async () => {
    await start();
    await stack.apply(containerAgent('alpha', listenerId, { smokeTest: PING }));
    const ready = (await stack.waitFor('alpha', isReady, 'Ready')) as WithSmokeTest;
    const [deployment] = await stack.deployments();
    expect(condition(ready, 'SmokeTestPassed')).toMatchObject({
      status: 'True',
      reason: 'SmokeTestPassed',
      message: expect.stringContaining(`Revision ${ready.status?.activeRevisionId}: the agent answered "`),
    });
    expect(condition(ready, 'Ready')?.message).toContain('passed its smoke test');
    expect(ready.status?.url).toBe(deployment?.source_config.custom_url);
    expect(ready.status?.customUrl).toBe(deployment?.source_config.custom_url);
    // The agent answers GET /ok at status.url.
    const ok = await fetch(`${ready.status?.url}/ok`, {
      headers: { 'x-api-key': API_KEY, 'x-auth-scheme': 'platform-api-key' },
    });
    expect(ok.status).toBe(200);
    // The emulated reply names the revision that answered.
    expect(ready.status?.smokeTest?.message).toContain('registry.example/agent:1');
    const first = await runWaitCalls();
    expect(first).toEqual([
      expect.objectContaining({
        deployment_id: deployment?.id,
        status: 200,
        key_fingerprint: KEY_FINGERPRINT,
        count: 1,
      }),
    ]);

    // Later passes make no call: the verdict is recorded for this revision.
    await reconcileOnce('alpha');
    expect(sum(await runWaitCalls())).toBe(1);

    // A new revision is called once more, and its answer names the new image.
    await stack.patchSpec('alpha', { sourceRevisionConfig: { imageUri: 'registry.example/agent:2' } });
    const second = (await stack.waitFor(
      'alpha',
      (o) => isReady(o) && o.status?.activeRevisionId !== ready.status?.activeRevisionId,
      'Ready on the new revision',
    )) as WithSmokeTest;
    expect(second.status?.smokeTest?.revisionId).toBe(second.status?.activeRevisionId);
    expect(second.status?.smokeTest?.message).toContain('registry.example/agent:2');
    expect(sum(await runWaitCalls())).toBe(2);
    const passed = (
      await stack.eventsOnce(
        'alpha',
        (seen) => seen.filter((event) => event.reason === 'SmokeTestPassed').length >= 2,
        'the second SmokeTestPassed',
      )
    ).filter((event) => event.reason === 'SmokeTestPassed');
    expect(passed.map((event) => event.type)).toEqual(['Normal', 'Normal']);

    const metrics = await stack.operators[0]?.registry.getSingleMetricAsString(
      'agent_operator_smoke_test_duration_seconds',
    );
    expect(metrics).toContain('agent_operator_smoke_test_duration_seconds_count{result="passed"} 2');
    expect(metrics).toContain('agent_operator_smoke_test_duration_seconds_count{result="failed"} 0');
  });

  it('a reply that does not match is Ready=False SmokeTestFailed (not Stalled), quoted, once; a fixed spec recovers', async () => {
    await start();
    await stack.apply(
      containerAgent('beta', listenerId, { smokeTest: { ...PING, expect: { contains: 'pong' } } }),
    );
    const failed = (await stack.waitFor(
      'beta',
      (o) => condition(o, 'Ready')?.reason === 'SmokeTestFailed',
      'SmokeTestFailed',
    )) as WithSmokeTest;
    expect(condition(failed, 'Ready')).toMatchObject({
      status: 'False',
      message: expect.stringContaining('does not contain "pong": "'),
    });
    expect(condition(failed, 'Stalled')?.status).toBe('False');
    expect(condition(failed, 'Reconciling')?.status).toBe('False');
    expect(condition(failed, 'SmokeTestPassed')).toMatchObject({
      status: 'False',
      reason: 'SmokeTestFailed',
    });
    expect(failed.status?.url).toBeUndefined();
    // A reply that cannot change on retry is not retried.
    await reconcileOnce('beta');
    expect(sum(await runWaitCalls())).toBe(1);
    const warnings = await stack.eventsWithReason('beta', 'SmokeTestFailed');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.type).toBe('Warning');

    await stack.patchSpec('beta', { smokeTest: { expect: { contains: 'ping' } } });
    const recovered = await stack.waitFor('beta', isReady, 'Ready once the smoke test is fixed');
    expect(condition(recovered, 'SmokeTestPassed')?.status).toBe('True');
    expect(sum(await runWaitCalls())).toBe(2);
  });

  it('an agent that raises fails the smoke test with the error quoted', async () => {
    await start();
    const raising = { input: { messages: [{ role: 'user', content: 'raise:the model is missing' }] } };
    await stack.apply(containerAgent('gamma', listenerId, { smokeTest: raising }));
    const failed = await stack.waitFor(
      'gamma',
      (o) => condition(o, 'Ready')?.reason === 'SmokeTestFailed',
      'SmokeTestFailed',
    );
    expect(condition(failed, 'Ready')?.message).toContain('the model is missing');
  });

  it('retries with backoff while the agent warms up (503s), then passes; a budget spent on 503s fails', async () => {
    await start();
    await stack.admin('POST', '/agent-faults', { route: '/runs/wait', status: 503, count: 2 });
    await stack.apply(containerAgent('delta', listenerId, { smokeTest: PING }));
    const ready = await stack.waitFor('delta', isReady, 'Ready after warm-up');
    expect(condition(ready, 'SmokeTestPassed')?.status).toBe('True');
    const metrics = await stack.operators[0]?.registry.getSingleMetricAsString(
      'agent_operator_smoke_test_duration_seconds',
    );
    expect(metrics).toContain('agent_operator_smoke_test_duration_seconds_count{result="retry"} 2');
    expect(metrics).toContain('agent_operator_smoke_test_duration_seconds_count{result="passed"} 1');

    await stack.admin('POST', '/agent-faults', { route: '/runs/wait', status: 503, count: 1_000 });
    await stack.apply(containerAgent('epsilon', listenerId, { smokeTest: { ...PING, timeoutSeconds: 2 } }));
    const failed = await stack.waitFor(
      'epsilon',
      (o) => condition(o, 'Ready')?.reason === 'SmokeTestFailed',
      'SmokeTestFailed',
    );
    expect(condition(failed, 'Ready')?.message).toMatch(
      /no passing answer within 2 s \(\d+ attempts\); last: unavailable: HTTP 503/,
    );
    // Capped backoff within 2 s: a handful of attempts, not a tight loop.
    const attempts = Number(/\((\d+) attempts\)/.exec(condition(failed, 'Ready')?.message ?? '')?.[1]);
    expect(attempts).toBeGreaterThanOrEqual(3);
    expect(attempts).toBeLessThanOrEqual(8);
  });

  it('a slow agent holds no worker: with one worker, another object is Ready while its smoke test runs', async () => {
    stack = await Stack.start({ operator: { resyncPeriodMs: 1_000, concurrency: 1 } });
    listenerId = await stack.listenerId();
    const slow = { input: { messages: [{ role: 'user', content: 'sleep:4000 ping' }] }, timeoutSeconds: 30 };
    await stack.apply(containerAgent('slow', listenerId, { smokeTest: slow }));
    await stack.waitFor(
      'slow',
      (o) => condition(o, 'Ready')?.reason === 'SmokeTestPending',
      'SmokeTestPending',
    );
    await stack.apply(containerAgent('quick', listenerId));
    await stack.waitFor('quick', isReady, 'Ready', 3_000);
    expect(condition(await stack.get('slow'), 'Ready')?.reason).toBe('SmokeTestPending');
    await stack.waitFor('slow', isReady, 'Ready once the slow agent answered', 10_000);
  });

  it('never shows the key in status, events or logs, even when the agent echoes it', async () => {
    await start();
    const echo = {
      input: { messages: [{ role: 'user', content: `say ${API_KEY}` }] },
      expect: { contains: 'pong' },
    };
    await stack.apply(containerAgent('zeta', listenerId, { smokeTest: echo }));
    const failed = await stack.waitFor(
      'zeta',
      (o) => condition(o, 'Ready')?.reason === 'SmokeTestFailed',
      'SmokeTestFailed',
    );
    const { spec: _spec, ...withoutSpec } = failed;
    expect(JSON.stringify(withoutSpec)).not.toContain(API_KEY);
    expect(condition(failed, 'Ready')?.message).toContain('[redacted]');
    expect(JSON.stringify(await stack.events('zeta'))).not.toContain(API_KEY);
    expect(stack.logLines.join('\n')).not.toContain(API_KEY);
  });
});
