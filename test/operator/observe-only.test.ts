// spec.managementPolicy: ObserveOnly end to end against both emulators: status mirrors a
// deployment another pipeline made, found by name or by the deployment-id annotation, and
// the control-plane emulator's own request statistics prove the operator sent no write: no
// POST, PATCH or DELETE, not while observing, not when the spec differs from the deployment,
// not when the object is deleted. No finalizer is added, so deletion never waits on the
// control plane.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Deployment } from '../../src/controlplane/models/index.js';
import { Stack, condition, containerAgent, type AgentDeploymentObject } from './harness.js';

interface Stats {
  byRoute: Array<{ method: string; route?: string; count: number }>;
}

let stack: Stack;
let listenerId: string;

beforeEach(async () => {
  stack = await Stack.start({ operator: { resyncPeriodMs: 1_000 } });
  listenerId = await stack.listenerId();
});
afterEach(async () => {
  await stack.close();
});

/** Every request the control plane answered that was not a read. */
async function writeCalls(): Promise<number> {
  const stats = await stack.admin<Stats>('GET', '/stats');
  return stats.byRoute.filter((row) => row.method !== 'GET').reduce((sum, row) => sum + row.count, 0);
}

/** A deployment made outside the operator, as a CI pipeline would make it. */
async function madeElsewhere(name: string): Promise<Deployment> {
  const { status, body } = await stack.api<Deployment>('POST', '/v2/deployments', {
    name,
    source: 'external_container',
    source_config: { listener_id: listenerId },
    source_revision_config: { image_uri: 'registry.example/pipeline:7' },
    secrets: [],
  });
  expect(status).toBe(201);
  return body;
}

function observer(name: string, extra: Record<string, unknown> = {}): AgentDeploymentObject {
  const object = containerAgent(name, listenerId, { managementPolicy: 'ObserveOnly', ...extra });
  // What the spec asks differs from the deployment (another image, a Secret that does not
  // exist): a managing operator would patch; an observing one must not even read the Secret's absence as a reason to act.
  object.spec.sourceRevisionConfig = { imageUri: 'registry.example/mine:1' };
  object.spec.secrets = [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'absent', key: 'k' } } }];
  return object;
}

const observed = (o: AgentDeploymentObject) =>
  condition(o, 'Ready')?.reason === 'Observed' && condition(o, 'Ready')?.status === 'True';

describe('managementPolicy ObserveOnly', () => {
  it('mirrors a deployment found by name and never writes, not even on deletion', async () => {
    const deployment = await madeElsewhere('pipeline-agent');
    const writesBefore = await writeCalls();

    await stack.apply(observer('pipeline-agent'));
    const object = await stack.waitFor('pipeline-agent', observed, 'Ready: Observed');
    expect(object.status).toMatchObject({
      deploymentId: deployment.id,
      tenantId: deployment.tenant_id,
      deploymentStatus: expect.any(String) as unknown as string,
    });
    expect(object.metadata.finalizers ?? []).toEqual([]);
    expect(object.status?.ownership?.deploymentId).toBeUndefined();

    // It keeps looking (resyncs) and still finds nothing to write.
    await stack.waitForReconciles(3, 'pipeline-agent, observed again');
    expect(await writeCalls()).toBe(writesBefore);

    await stack.client.delete(
      { group: 'agentplatform.io', version: 'v1alpha1', plural: 'agentdeployments' },
      'team-a',
      'pipeline-agent',
    );
    await stack.waitGone('pipeline-agent');
    expect((await stack.deployments()).map((d) => d.id)).toEqual([deployment.id]);
    expect(await writeCalls()).toBe(writesBefore);
  });

  it('mirrors the deployment the deployment-id annotation names, whatever its name', async () => {
    const deployment = await madeElsewhere('named-by-ci');
    const writesBefore = await writeCalls();
    const object = observer('by-id');
    object.metadata.annotations = { 'agentplatform.io/deployment-id': deployment.id };
    await stack.apply(object);
    const seen = await stack.waitFor('by-id', observed, 'Ready: Observed');
    expect(seen.status?.deploymentId).toBe(deployment.id);
    expect(await writeCalls()).toBe(writesBefore);
  });

  it('reports DeploymentNotFound, and creates nothing, when there is nothing to observe', async () => {
    const writesBefore = await writeCalls();
    await stack.apply(observer('nowhere'));
    const object = await stack.waitFor(
      'nowhere',
      (o) => condition(o, 'Ready')?.reason === 'DeploymentNotFound',
      'Ready=False: DeploymentNotFound',
    );
    expect(condition(object, 'Stalled')?.status).toBe('False');
    expect(condition(object, 'Ready')?.message).toContain('named "nowhere"');
    expect(await stack.deployments()).toEqual([]);
    expect(await writeCalls()).toBe(writesBefore);
  });
});
