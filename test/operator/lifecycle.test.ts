// The operator end to end against both emulators: create, update, secret rotation, failure
// and recovery, deletion policies, adoption, drift. Each test asserts on the control plane's
// own record (through its admin API), not only on what the operator reports.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

async function readyAgent(name: string, extra: Record<string, unknown> = {}): Promise<AgentDeploymentObject> {
  await stack.apply(containerAgent(name, listenerId, extra));
  return stack.waitFor(name, isReady, 'Ready');
}

describe('AgentDeployment lifecycle', () => {
  it('creates the deployment and reports the active revision the control plane has', async () => {
    const object = await readyAgent('alpha');
    const [deployment, ...others] = await stack.deployments();
    expect(others).toHaveLength(0);
    expect(deployment?.name).toBe('alpha');
    expect(object.status).toMatchObject({
      deploymentId: deployment?.id,
      activeRevisionId: deployment?.active_revision_id,
      latestRevisionId: deployment?.latest_revision_id,
      latestRevisionStatus: 'DEPLOYED',
      deploymentStatus: deployment?.status,
    });
    expect(object.metadata.finalizers).toContain('agentplatform.io/finalizer');
    // Ownership lives in status (tenants cannot write it), keyed by the object's uid; the
    // create intent is gone once the id is recorded. No annotation is written.
    expect(object.status?.ownership).toEqual({ uid: object.metadata.uid, deploymentId: deployment?.id });
    expect(object.metadata.annotations ?? {}).toEqual({});
    expect(condition(object, 'Reconciling')?.status).toBe('False');
    expect(condition(object, 'Stalled')?.status).toBe('False');
    // One "controller" field per JSON log line (a duplicate key is what log shippers choke on).
    expect(stack.logLines.filter((line) => (line.match(/"controller":/g) ?? []).length > 1)).toEqual([]);
    expect(stack.logLines.some((line) => line.includes('"controller":"agentdeployment"'))).toBe(true);
    // Kubernetes shapes reach the control plane unchanged.
    expect(deployment?.source_config.resource_spec?.sidecars?.[0]).toMatchObject({
      name: 'proxy',
      image: 'envoyproxy/envoy:v1.31',
      restartPolicy: 'Always',
    });
    expect(deployment?.source_config.resource_spec?.volume_mounts?.[0]).toMatchObject({
      name: 'cache',
      mountPath: '/cache',
    });
  });

  it('rolls out a new revision when the image changes, and records it as active', async () => {
    const first = await readyAgent('beta');
    await stack.patchSpec('beta', { sourceRevisionConfig: { imageUri: 'registry.example/agent:2' } });
    const second = await stack.waitFor(
      'beta',
      (o) => isReady(o) && o.status?.activeRevisionId !== first.status?.activeRevisionId,
      'Ready on a new revision',
    );
    const [deployment] = await stack.deployments();
    expect(deployment?.source_revision_config.image_uri).toBe('registry.example/agent:2');
    expect(second.status?.activeRevisionId).toBe(deployment?.active_revision_id);
    const expected = ['Created', 'Updated', 'NewRevision', 'Deployed'];
    const events = await stack.eventsOnce(
      'beta',
      (seen) =>
        seen.some((event) => event.note === `Revision ${second.status?.activeRevisionId} is deployed`),
      'the new revision Deployed',
    );
    expect(events.map((event) => event.reason)).toEqual(expect.arrayContaining(expected));
  });

  it('makes no control-plane write when nothing changed', async () => {
    await readyAgent('gamma');
    const before = await stack.admin<{ byRoute: Array<{ method: string; count: number }> }>('GET', '/stats');
    const writes = (stats: typeof before) =>
      stats.byRoute.filter((row) => row.method !== 'GET').reduce((sum, row) => sum + row.count, 0);
    // The operator looks at it again (resyncs) and finds nothing to do.
    await stack.waitForReconciles(2, 'gamma, converged');
    const after = await stack.admin<typeof before>('GET', '/stats');
    expect(writes(after)).toBe(writes(before));
  });

  it('rolls out a new revision when a referenced Secret changes, and never shows the value', async () => {
    await stack.putSecret('agent-secrets', { token: 'first-value-4f1c' });
    const first = await readyAgent('delta', {
      secrets: [{ name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: 'agent-secrets', key: 'token' } } }],
    });
    expect((await stack.deployments())[0]?.secrets).toEqual([
      { name: 'API_TOKEN', value: 'first-value-4f1c' },
    ]);
    await stack.putSecret('agent-secrets', { token: 'rotated-value-9e2b' });
    const rotated = await stack.waitFor(
      'delta',
      (o) => isReady(o) && o.status?.activeRevisionId !== first.status?.activeRevisionId,
      'Ready on the rotated secret',
    );
    expect((await stack.deployments())[0]?.secrets).toEqual([
      { name: 'API_TOKEN', value: 'rotated-value-9e2b' },
    ]);
    const everything = JSON.stringify([rotated, await stack.events(), stack.logLines]);
    const metrics = await stack.operators[0]?.registry.metrics();
    for (const value of ['first-value-4f1c', 'rotated-value-9e2b', API_KEY_FRAGMENT]) {
      expect(everything).not.toContain(value);
      expect(metrics).not.toContain(value);
    }
  });

  it('waits for a missing Secret without stalling, then proceeds when it appears', async () => {
    await stack.apply(
      containerAgent('epsilon', listenerId, {
        secrets: [{ name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: 'late-secret', key: 'token' } } }],
      }),
    );
    const waiting = await stack.waitFor(
      'epsilon',
      (o) => condition(o, 'Ready')?.reason === 'SecretNotFound',
      'waiting for its Secret',
    );
    expect(condition(waiting, 'Stalled')?.status).toBe('False');
    expect(condition(waiting, 'Reconciling')?.status).toBe('True');
    expect(await stack.deployments()).toHaveLength(0);
    // Besides the condition, a Warning event that `kubectl describe` and event exporters show.
    await stack.eventsOnce(
      'epsilon',
      (events) =>
        events.some(
          (event) =>
            event.type === 'Warning' &&
            event.reason === 'SecretNotFound' &&
            /late-secret/.test(event.note ?? ''),
        ),
      'a SecretNotFound warning',
    );
    await stack.putSecret('late-secret', { token: 'x' });
    await stack.waitFor('epsilon', isReady, 'Ready');
  });

  it('stalls on a failed build with the reason, without retrying, and recovers when the spec changes', async () => {
    await stack.admin('POST', '/revision-failures', { deployment_name: 'zeta', status: 'DEPLOY_FAILED' });
    await stack.apply(containerAgent('zeta', listenerId));
    const stalled = await stack.waitFor('zeta', (o) => condition(o, 'Stalled')?.status === 'True', 'Stalled');
    expect(condition(stalled, 'Ready')).toMatchObject({ status: 'False', reason: 'RevisionFailed' });
    expect(condition(stalled, 'Stalled')?.message).toContain('DEPLOY_FAILED');
    const revisionsBefore = (await stack.deployments())[0]?.latest_revision_id;
    await stack.waitForReconciles(2, 'zeta, stalled');
    expect((await stack.deployments())[0]?.latest_revision_id).toBe(revisionsBefore);
    await stack.patchSpec('zeta', { sourceRevisionConfig: { imageUri: 'registry.example/agent:fixed' } });
    const fixed = await stack.waitFor('zeta', isReady, 'Ready after the fix');
    expect(condition(fixed, 'Stalled')?.status).toBe('False');
  });

  it('reports a 400 from the control plane as Stalled with its reason', async () => {
    // A cluster namespace the listener does not offer passes the CRD but not the control plane.
    await stack.apply(containerAgent('eta', listenerId));
    await stack.waitFor('eta', isReady, 'Ready');
    await stack.apply({
      ...containerAgent('theta', listenerId),
      spec: {
        ...containerAgent('theta', listenerId).spec,
        sourceConfig: { listenerId, listenerConfig: { clusterNamespace: 'not-offered' } },
      },
    });
    const stalled = await stack.waitFor(
      'theta',
      (o) => condition(o, 'Stalled')?.status === 'True',
      'Stalled',
    );
    expect(condition(stalled, 'Stalled')?.reason).toBe('Rejected');
    expect(condition(stalled, 'Stalled')?.message).toMatch(/400/);
    expect((await stack.deployments()).map((d) => d.name)).toEqual(['eta']);
  });

  it('deletes the deployment with deletionPolicy Delete, and keeps it with Orphan', async () => {
    await readyAgent('keep', { deletionPolicy: 'Orphan' });
    await readyAgent('drop');
    await stack.client.delete(AGENTS, 'team-a', 'drop');
    await stack.client.delete(AGENTS, 'team-a', 'keep');
    await stack.waitGone('drop');
    await stack.waitUntil(
      async () => (await stack.deployments()).every((d) => d.name !== 'drop'),
      'the deployment is deleted',
    );
    await stack.waitGone('keep');
    expect((await stack.deployments()).map((d) => d.name)).toEqual(['keep']);
  });

  it('adopts an existing deployment of the same name only when asked to', async () => {
    const created = await stack.api<{ id: string }>('POST', '/v2/deployments', {
      name: 'legacy',
      source: 'external_container',
      source_config: { listener_id: listenerId },
      source_revision_config: { image_uri: 'registry.example/legacy:1' },
      secrets: [],
    });
    expect(created.status).toBe(201);
    await stack.apply(containerAgent('legacy', listenerId));
    const conflict = await stack.waitFor(
      'legacy',
      (o) => condition(o, 'Stalled')?.status === 'True',
      'Stalled',
    );
    expect(condition(conflict, 'Stalled')?.reason).toBe('NameConflict');
    await stack.patchSpec('legacy', { adoptExisting: true });
    const adopted = await stack.waitFor('legacy', isReady, 'Ready after adoption');
    expect(adopted.status?.deploymentId).toBe(created.body.id);
    const deployments = await stack.deployments();
    expect(deployments).toHaveLength(1);
    expect(deployments[0]?.source_revision_config.image_uri).toBe('registry.example/agent:1');
  });

  it('corrects drift made outside the operator and says what drifted', async () => {
    const object = await readyAgent('iota');
    const id = object.status?.deploymentId ?? '';
    const patched = await stack.api('PATCH', `/v2/deployments/${id}`, {
      source_revision_config: { image_uri: 'registry.example/someone-else:9' },
    });
    expect(patched.status).toBe(200);
    await stack.waitUntil(
      async () =>
        (await stack.deployments())[0]?.source_revision_config.image_uri === 'registry.example/agent:1',
      'the image is re-applied',
    );
    const [drift] = await stack.eventsWithReason('iota', 'DriftCorrected');
    expect(drift?.note).toContain('spec.sourceRevisionConfig.imageUri');
    await stack.waitFor('iota', isReady, 'Ready again');
  });

  it('recreates a deployment deleted outside the operator', async () => {
    const object = await readyAgent('kappa');
    const id = object.status?.deploymentId ?? '';
    expect((await stack.api('DELETE', `/v2/deployments/${id}`)).status).toBe(204);
    const recreated = await stack.waitFor(
      'kappa',
      (o) => isReady(o) && o.status?.deploymentId !== id,
      'Ready on a new deployment',
      30_000,
    );
    const deployments = await stack.deployments();
    expect(deployments.map((d) => d.id)).toEqual([recreated.status?.deploymentId]);
  });

  it('makes no control-plane call while suspended', async () => {
    await stack.apply(containerAgent('lambda', listenerId, { suspend: true }));
    await stack.waitFor('lambda', (o) => condition(o, 'Reconciling')?.reason === 'Suspended', 'Suspended');
    expect(await stack.deployments()).toHaveLength(0);
    await stack.patchSpec('lambda', { suspend: false });
    await stack.waitFor('lambda', isReady, 'Ready after resuming');
  });
});

const AGENTS = { group: 'agentplatform.io', version: 'v1alpha1', plural: 'agentdeployments' };
const API_KEY_FRAGMENT = 'harness-key-0123456789';
