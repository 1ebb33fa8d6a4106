// The operator on an ordinary bad day (issue 13, defects 4 to 7 and 9) and the two
// annotations users ask every CD tool for. Each test asserts numbers the emulators count.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Registry } from 'prom-client';
import { Stack, condition, containerAgent, isReady, type AgentDeploymentObject } from './harness.js';

let stack: Stack;
let listenerId: string;

beforeEach(async () => {
  stack = await Stack.start({ operator: { resyncPeriodMs: 1_000 } });
  listenerId = await stack.listenerId();
});
afterEach(async () => {
  await stack.close();
});

interface Stats {
  byRoute: Array<{ method: string; route: string; status: number; count: number }>;
}

async function calls(filter: (row: Stats['byRoute'][number]) => boolean): Promise<number> {
  const stats = await stack.admin<Stats>('GET', '/stats');
  return stats.byRoute.filter(filter).reduce((sum, row) => sum + row.count, 0);
}
const writes = (row: Stats['byRoute'][number]): boolean => row.method !== 'GET';

async function metric(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const found = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const values = (found?.values ?? []) as Array<{ value: number; labels: Record<string, string | number> }>;
  return values
    .filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want))
    .reduce((sum, v) => sum + v.value, 0);
}

async function readyAgent(name: string, extra: Record<string, unknown> = {}): Promise<AgentDeploymentObject> {
  await stack.apply(containerAgent(name, listenerId, extra));
  return stack.waitFor(name, isReady, 'Ready');
}

async function annotate(name: string, annotations: Record<string, string>): Promise<void> {
  await stack.client.mergePatch(
    { group: 'agentplatform.io', version: 'v1alpha1', plural: 'agentdeployments' },
    'team-a',
    name,
    { metadata: { annotations } },
  );
}

describe('a control plane that refuses the key (defects 4 and 5)', () => {
  it('backs the poller off, shows the refusal on a changed object, never Stalls it, and recovers by itself', async () => {
    await readyAgent('auth');
    const operator = stack.operators[0];
    if (!operator) throw new Error('no operator');
    await stack.admin('POST', '/faults', { status: 401 });
    const lists = (row: Stats['byRoute'][number]): boolean =>
      row.method === 'GET' && row.route === '/v2/deployments' && row.status === 401;
    await stack.waitUntil(async () => (await calls(lists)) > 0, 'the poller meets the 401');
    const start = await calls(lists);
    // The spec changes during the outage: the PATCH is refused too.
    await stack.patchSpec('auth', { sourceRevisionConfig: { imageUri: 'registry.example/agent:2' } });
    const shown = await stack.waitFor(
      'auth',
      (o) => condition(o, 'Ready')?.reason === 'ControlPlaneUnavailable',
      'ControlPlaneUnavailable',
    );
    expect(condition(shown, 'Ready')?.message).toMatch(/refuses the API key \(HTTP 401\)/);
    expect(condition(shown, 'Stalled')?.status).toBe('False');
    expect(condition(shown, 'Reconciling')?.status).toBe('True');
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    // Before the fix: one list every 200 ms tick, about 25 in 5 s.
    expect((await calls(lists)) - start).toBeLessThanOrEqual(6);
    expect(await metric(operator.registry, 'agent_operator_controlplane_available')).toBe(0);
    expect(await metric(operator.registry, 'agent_operator_controlplane_auth_failing')).toBe(1);
    expect(
      await metric(operator.registry, 'agent_operator_reconcile_failures_total', { class: 'Unauthorized' }),
    ).toBeGreaterThan(0);
    expect(operator.manager.health().ready).toBe(true);

    await stack.admin('DELETE', '/faults');
    const healed = await stack.waitFor('auth', isReady, 'Ready at the new generation', 60_000);
    expect((await stack.deployments())[0]?.source_revision_config.image_uri).toBe('registry.example/agent:2');
    expect(condition(healed, 'Stalled')?.status).toBe('False');
    expect(await metric(operator.registry, 'agent_operator_controlplane_available')).toBe(1);
  }, 90_000);
});

describe('a restart of a converged operator (defect 6)', () => {
  it('emits no event and counts no revision again', async () => {
    await readyAgent('calm');
    const eventsBefore = await stack.eventsOnce(
      'calm',
      (events) => events.some((event) => event.reason === 'Deployed'),
      'the Deployed event',
    );
    const countsBefore = eventsBefore.map((event) => [
      event.reason,
      (event as { series?: { count?: number } }).series?.count,
    ]);
    await stack.operators[0]?.stop();
    stack.operators.splice(0);
    const restarted = await stack.startOperator();
    await stack.waitUntil(
      async () => (await metric(restarted.registry, 'controller_runtime_reconcile_total')) >= 1,
      'the restarted operator reconciles',
    );
    // A few resync periods pass, each one a reconcile that must change nothing.
    await stack.waitForReconciles(2, 'calm, after the restart', { operator: restarted });
    const eventsAfter = await stack.events('calm');
    expect(
      eventsAfter.map((event) => [event.reason, (event as { series?: { count?: number } }).series?.count]),
    ).toEqual(countsBefore);
    expect(await metric(restarted.registry, 'agent_operator_revisions_total')).toBe(0);
    expect(await calls(writes)).toBe(1);
  });
});

describe('suspend (defect 7)', () => {
  it('makes no control-plane write, never claims a newer generation Ready, and deleting leaves the deployment', async () => {
    const ready = await readyAgent('paused');
    const id = ready.status?.deploymentId;
    await stack.patchSpec('paused', { suspend: true });
    await stack.waitFor('paused', (o) => condition(o, 'Reconciling')?.reason === 'Suspended', 'Suspended');
    const writesBefore = await calls(writes);
    await stack.patchSpec('paused', { sourceRevisionConfig: { imageUri: 'registry.example/agent:9' } });
    // Reconciles that begin after the patch, so that they see the new generation.
    await stack.waitForReconciles(2, 'paused, at the new generation');
    const suspended = await stack.get('paused');
    // kstatus reads a generation the operator did not act on as in progress, never Ready.
    expect(suspended.status?.observedGeneration).toBeLessThan(suspended.metadata.generation ?? 0);
    expect(isReady(suspended)).toBe(false);
    expect(await calls(writes)).toBe(writesBefore);

    await stack.client.delete(
      { group: 'agentplatform.io', version: 'v1alpha1', plural: 'agentdeployments' },
      'team-a',
      'paused',
    );
    await stack.waitGone('paused');
    expect(await calls(writes)).toBe(writesBefore);
    expect((await stack.deployments()).map((d) => d.id)).toEqual([id]);
    const [orphaned] = await stack.eventsWithReason('paused', 'Orphaned');
    expect(orphaned?.note).toContain('suspended');
  });
});

describe('fields removed from the spec (defect 9)', () => {
  it('removes a sidecar on the control plane, and warns about secrets it cannot clear', async () => {
    await stack.putSecret('keys', { token: 'hunter2-value' });
    await readyAgent('trim', {
      secrets: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'keys', key: 'token' } } }],
    });
    const spec = containerAgent('trim', listenerId).spec as {
      sourceConfig: { resourceSpec: Record<string, unknown> };
    };
    const { sidecars: _removed, ...withoutSidecars } = spec.sourceConfig.resourceSpec;
    await stack.client.jsonPatch(
      { group: 'agentplatform.io', version: 'v1alpha1', plural: 'agentdeployments' },
      'team-a',
      'trim',
      [
        { op: 'replace', path: '/spec/sourceConfig/resourceSpec', value: withoutSidecars },
        { op: 'remove', path: '/spec/secrets' },
      ],
    );
    await stack.waitUntil(
      async () => ((await stack.deployments())[0]?.source_config.resource_spec?.sidecars ?? []).length === 0,
      'the sidecar is gone on the control plane',
    );
    await stack.waitFor('trim', isReady, 'Ready');
    const [warning] = await stack.eventsWithReason('trim', 'CannotClear');
    expect(warning?.type).toBe('Warning');
    expect(warning?.note).toContain('spec.secrets');
    expect(warning?.note).not.toContain('hunter2');
  });
});

describe('redeploy-at and reconcile-requested-at', () => {
  it('rolls out one new revision per new redeploy value and records it', async () => {
    const ready = await readyAgent('again');
    const first = ready.status?.latestRevisionId;
    await annotate('again', { 'agentplatform.io/redeploy-at': '2026-11-23T12:00:00Z' });
    const redeployed = await stack.waitFor(
      'again',
      (o) => isReady(o) && o.status?.lastHandledRedeployAt === '2026-11-23T12:00:00Z',
      'Ready on a new revision',
    );
    expect(redeployed.status?.latestRevisionId).not.toBe(first);
    const second = redeployed.status?.latestRevisionId;
    // The same value again (any other annotation change wakes the object): nothing new.
    await annotate('again', { unrelated: 'x' });
    await stack.waitForReconciles(2, 'again, after the unrelated annotation');
    expect((await stack.deployments())[0]?.latest_revision_id).toBe(second);
    const newRevisions = await stack.eventsWithReason('again', 'NewRevision');
    expect(newRevisions).toHaveLength(1);
  });

  it('looks now on reconcile-requested-at, echoes the value, and makes no revision', async () => {
    const ready = await readyAgent('look');
    const lists = async (): Promise<number> => calls((row) => row.method === 'GET');
    const before = await lists();
    await annotate('look', { 'agentplatform.io/reconcile-requested-at': 'now-1' });
    const handled = await stack.waitFor(
      'look',
      (o) => o.status?.lastHandledReconcileAt === 'now-1',
      'handled',
    );
    expect(handled.status?.latestRevisionId).toBe(ready.status?.latestRevisionId);
    expect((await lists()) - before).toBeGreaterThanOrEqual(1);
    expect(await calls(writes)).toBe(1);
  });
});
