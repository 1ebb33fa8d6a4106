// Ownership end to end (issue 13, defects 1, 2, 3 and 11): exactly one object owns a
// control-plane deployment; a refused create costs nothing until the spec changes; an
// object never writes to, nor deletes, a deployment another object owns, across restarts
// and whatever annotations a tenant writes. Numbers come from the emulator's own counters.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_DEPLOYMENTS } from '../../src/operator/operator.js';
import { isNotFound } from '../../src/runtime/kube/errors.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import {
  EVENTS,
  NAMESPACE,
  Stack,
  condition,
  containerAgent,
  isReady,
  type AgentDeploymentObject,
} from './harness.js';

const OTHER_NAMESPACE = 'team-b';
const NAMESPACES = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };

let stack: Stack;
let listenerId: string;

beforeEach(async () => {
  stack = await Stack.start({ operator: { resyncPeriodMs: 1_000 } });
  listenerId = await stack.listenerId();
  await stack.client.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: OTHER_NAMESPACE },
  });
});
afterEach(async () => {
  await stack.close();
});

interface Stats {
  byRoute: Array<{ method: string; route: string; status: number; count: number }>;
}

/** Control-plane requests so far, optionally of one method (and route template). */
async function calls(method?: string, route?: string): Promise<number> {
  const stats = await stack.admin<Stats>('GET', '/stats');
  return stats.byRoute
    .filter(
      (row) =>
        (method === undefined || row.method === method) && (route === undefined || row.route === route),
    )
    .reduce((sum, row) => sum + row.count, 0);
}

function inNamespace(namespace: string, object: AgentDeploymentObject): AgentDeploymentObject {
  return { ...object, metadata: { ...object.metadata, namespace } };
}

/** The object, or undefined when the API server says NotFound; any other error is thrown. */
async function getIn(namespace: string, name: string): Promise<AgentDeploymentObject | undefined> {
  try {
    return await stack.client.get<AgentDeploymentObject>(AGENT_DEPLOYMENTS, namespace, name);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

async function waitIn(
  namespace: string,
  name: string,
  predicate: (object: AgentDeploymentObject) => boolean,
  what: string,
): Promise<AgentDeploymentObject> {
  let last: AgentDeploymentObject | undefined;
  await stack.waitUntil(async () => {
    last = await getIn(namespace, name);
    return last !== undefined && predicate(last);
  }, `${namespace}/${name} ${what}`);
  if (!last) throw new Error('unreachable');
  return last;
}

async function eventsIn(namespace: string, name: string): Promise<Array<{ reason?: string; note?: string }>> {
  const list = await stack.client.list<
    KubeObject & { reason?: string; note?: string; regarding?: { name?: string } }
  >(EVENTS, { namespace });
  return list.items.filter((event) => event.regarding?.name === name);
}

const stalled = (o: AgentDeploymentObject): boolean => condition(o, 'Stalled')?.status === 'True';

describe('a refused create (defect 1)', () => {
  it('is Stalled with the server’s reason and costs no call until the spec changes', async () => {
    const unknownListener = '99999999-9999-4999-8999-999999999999';
    await stack.apply(containerAgent('refused', unknownListener));
    const object = await stack.waitFor('refused', stalled, 'Stalled');
    expect(condition(object, 'Stalled')).toMatchObject({ reason: 'Rejected' });
    expect(condition(object, 'Stalled')?.message).toMatch(/HTTP 4\d\d/);
    expect(condition(object, 'Stalled')?.message).toContain('listener');

    // Nothing but a change wakes a refused object (it has no deployment to poll). Wake it
    // with a change that is not to the spec: the operator looks, and makes not one call.
    const before = await calls();
    const mark = await stack.reconcileMark();
    await stack.client.mergePatch(AGENT_DEPLOYMENTS, NAMESPACE, 'refused', {
      metadata: { annotations: { unrelated: 'wake-up' } },
    });
    await stack.waitForReconciles(1, 'the refused object, woken by an annotation', { since: mark });
    expect((await calls()) - before).toBe(0);
    expect(await stack.deployments()).toHaveLength(0);
    const rejections = await stack.eventsWithReason('refused', 'Rejected');
    expect(rejections).toHaveLength(1);

    // A new generation is a new request, sent at once (and refused once more).
    const postsBefore = await calls('POST');
    await stack.patchSpec('refused', { sourceRevisionConfig: { imageUri: 'registry.example/agent:2' } });
    await stack.waitFor(
      'refused',
      (o) =>
        stalled(o) &&
        o.status?.conditions?.find((c) => c.type === 'Stalled')?.observedGeneration === o.metadata.generation,
      'Stalled at the new generation',
    );
    expect((await calls('POST')) - postsBefore).toBe(1);
  });
});

describe('two objects claiming one control-plane name (defects 2 and 3)', () => {
  it('lets the older own it, Stalls the younger naming it with zero calls, and survives restarts and deletion', async () => {
    await stack.apply(containerAgent('shared', listenerId));
    const owner = await stack.waitFor('shared', isReady, 'Ready');
    const [deployment] = await stack.deployments();
    const postsBefore = await calls('POST');

    await stack.client.create(
      AGENT_DEPLOYMENTS,
      inNamespace(OTHER_NAMESPACE, containerAgent('shared', listenerId)),
    );
    const loser = await waitIn(OTHER_NAMESPACE, 'shared', stalled, 'Stalled');
    expect(condition(loser, 'Stalled')).toMatchObject({ reason: 'NameConflict' });
    expect(condition(loser, 'Stalled')?.message).toContain(`${NAMESPACE}/shared`);
    expect(loser.status?.ownership?.deploymentId).toBeUndefined();
    // The loser made no control-plane write, and has no finalizer to run.
    expect((await calls('POST')) - postsBefore).toBe(0);
    expect(loser.metadata.finalizers ?? []).toEqual([]);

    // A restart (all memory lost, caches relisted) changes nothing: no takeover, no fight.
    const revisionBefore = (await stack.deployments())[0]?.latest_revision_id;
    const writesBefore = (await calls('POST')) + (await calls('PATCH')) + (await calls('DELETE'));
    await stack.operators[0]?.stop();
    stack.operators.splice(0);
    const restarted = await stack.startOperator();
    // Its first sync reconciles each of the two claimants once.
    await stack.waitForReconciles(2, 'both claimants, by the restarted operator', {
      since: 0,
      operator: restarted,
    });
    expect((await calls('POST')) + (await calls('PATCH')) + (await calls('DELETE'))).toBe(writesBefore);
    expect((await stack.deployments())[0]?.latest_revision_id).toBe(revisionBefore);
    expect((await getIn(OTHER_NAMESPACE, 'shared'))?.status?.ownership?.deploymentId).toBeUndefined();
    expect((await stack.get('shared')).status?.ownership).toEqual({
      uid: owner.metadata.uid,
      deploymentId: deployment?.id,
    });

    // Deleting the loser leaves the winner's deployment alone.
    await stack.client.delete(AGENT_DEPLOYMENTS, OTHER_NAMESPACE, 'shared');
    await stack.waitUntil(
      async () => (await getIn(OTHER_NAMESPACE, 'shared')) === undefined,
      'the loser is gone',
    );
    expect(await calls('DELETE')).toBe(0);
    expect((await stack.deployments()).map((d) => d.id)).toEqual([deployment?.id]);
  });

  it('never lets an annotation hand over, or delete, another object’s deployment', async () => {
    await stack.apply(containerAgent('victim', listenerId));
    const victim = await stack.waitFor('victim', isReady, 'Ready');
    const victimId = victim.status?.deploymentId ?? '';

    // A tenant of another namespace writes the victim's id into its own object.
    const attacker = inNamespace(OTHER_NAMESPACE, containerAgent('attacker', listenerId));
    attacker.metadata.annotations = { 'agentplatform.io/deployment-id': victimId };
    await stack.client.create(AGENT_DEPLOYMENTS, attacker);
    const own = await waitIn(OTHER_NAMESPACE, 'attacker', isReady, 'Ready on its own deployment');
    expect(own.status?.ownership?.deploymentId).not.toBe(victimId);

    await stack.client.delete(AGENT_DEPLOYMENTS, OTHER_NAMESPACE, 'attacker');
    await stack.waitUntil(
      async () => (await getIn(OTHER_NAMESPACE, 'attacker')) === undefined,
      'attacker gone',
    );
    const left = await stack.deployments();
    expect(left.map((d) => d.id)).toEqual([victimId]);
    expect(left[0]?.source_revision_config.image_uri).toBe('registry.example/agent:1');
    expect((await eventsIn(OTHER_NAMESPACE, 'attacker')).map((e) => e.reason)).not.toContain('Adopted');
  });

  it('wakes the younger object when the older one is deleted, and it then creates its own', async () => {
    await stack.apply(containerAgent('handover', listenerId));
    await stack.waitFor('handover', isReady, 'Ready');
    await stack.client.create(
      AGENT_DEPLOYMENTS,
      inNamespace(OTHER_NAMESPACE, containerAgent('handover', listenerId)),
    );
    await waitIn(OTHER_NAMESPACE, 'handover', stalled, 'Stalled');
    await stack.client.delete(AGENT_DEPLOYMENTS, NAMESPACE, 'handover');
    const heir = await waitIn(OTHER_NAMESPACE, 'handover', isReady, 'Ready on a deployment of its own');
    const deployments = await stack.deployments();
    expect(deployments.map((d) => d.id)).toEqual([heir.status?.ownership?.deploymentId]);
  });
});

describe('a malformed deployment-id annotation (defect 11)', () => {
  it('hurts only its own object: every other object converges and no batched list fails', async () => {
    const broken = containerAgent('broken-hint', listenerId);
    broken.metadata.annotations = { 'agentplatform.io/deployment-id': 'not-a-uuid' };
    await stack.apply(broken);
    for (const name of ['ok-1', 'ok-2', 'ok-3']) await stack.apply(containerAgent(name, listenerId));
    for (const name of ['ok-1', 'ok-2', 'ok-3', 'broken-hint']) await stack.waitFor(name, isReady, 'Ready');
    const stats = await stack.admin<Stats>('GET', '/stats');
    const failedLists = stats.byRoute.filter(
      (row) => row.method === 'GET' && row.route === '/v2/deployments' && row.status >= 400,
    );
    expect(failedLists).toEqual([]);
  });
});
