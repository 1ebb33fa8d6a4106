// Issue 16, the attacker suite: a victim team has a Ready AgentDeployment in `team-a`; an
// attacker with rights over objects in `team-b` (edit, and for the status attacks also the
// status subresource, a right tenants should not hold) tries each way to make
// the operator touch the victim's deployment. After every attack: not one write aimed at
// the victim's deployment id (a recording proxy sees every request the operator makes), the
// deployment is byte for byte what it was, the victim stays Ready, and no secret value of
// either team appears in logs (debug level), events, status, metrics or the Argo CD health
// output.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_DEPLOYMENTS } from '../../src/operator/operator.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import {
  EVENTS,
  NAMESPACE,
  SECRETS,
  Stack,
  condition,
  containerAgent,
  isReady,
  type AgentDeploymentObject,
} from '../operator/harness.js';
import { runHealthScript } from '../packaging/support/lua.js';
import { ARGOCD_HEALTH_DIR } from '../packaging/support/paths.js';
import { startRecordingProxy, type RecordingProxy } from './recording-proxy.js';
import { secretForms } from '../support/secret-forms.js';
import { tenantObjects } from './tenant-objects.js';

const ATTACKER_NAMESPACE = 'team-b';
const NAMESPACES = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };
const HEALTH_SCRIPT = join(ARGOCD_HEALTH_DIR, 'health.lua');
const VICTIM_SECRET = 'v1ct1m"t0k\\en-7f3a';
const ATTACKER_SECRET = 'att4cker-0wn-v4lue-91c2';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let stack: Stack;
let proxy: RecordingProxy;
let listenerId: string;
let victim: AgentDeploymentObject;
let victimId: string;
let victimBefore: unknown;

beforeEach(async () => {
  stack = await Stack.start({ withoutOperator: true });
  proxy = await startRecordingProxy(stack.controlPlane.url);
  // Adoption is permitted to the victim's namespace only (the multi-tenant setting).
  await stack.startOperator({
    controlPlaneUrl: proxy.url,
    resyncPeriodMs: 1_000,
    adoptionNamespaces: [NAMESPACE],
  });
  listenerId = await stack.listenerId();
  await stack.client.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ATTACKER_NAMESPACE },
  });
  await stack.putSecret('victim-secrets', { token: VICTIM_SECRET });
  await stack.client.create(SECRETS, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'attacker-secrets', namespace: ATTACKER_NAMESPACE },
    data: { token: Buffer.from(ATTACKER_SECRET).toString('base64') },
  });
  await stack.apply(containerAgent('victim', listenerId, { secrets: [secretRef('victim-secrets')] }));
  victim = await stack.waitFor('victim', isReady, 'Ready');
  victimId = victim.status?.ownership?.deploymentId ?? '';
  expect(victimId).toMatch(UUID);
  victimBefore = await victimDeployment();
});
afterEach(async () => {
  await stack.close();
  await proxy.close();
});

function secretRef(secret: string): Record<string, unknown> {
  return { name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: secret, key: 'token' } } };
}

function attackerObject(name: string, extra: Record<string, unknown> = {}): AgentDeploymentObject {
  const object = containerAgent(name, listenerId, {
    sourceRevisionConfig: { imageUri: 'registry.example/attacker:evil' },
    secrets: [secretRef('attacker-secrets')],
    ...extra,
  });
  return { ...object, metadata: { ...object.metadata, namespace: ATTACKER_NAMESPACE } };
}

async function victimDeployment(): Promise<unknown> {
  return (await stack.deployments()).find((deployment) => deployment.id === victimId);
}

// Only NotFound reads as gone: another API error fails the test instead of passing for a deletion.
const team = tenantObjects(() => stack, ATTACKER_NAMESPACE);
const getAttacker = team.get;
const waitAttacker = team.waitFor;

/**
 * Writes status as a tenant holding agentdeployments/status would (the emulator has no
 * RBAC), then changes the spec as the attacker wants it applied: a status write alone wakes
 * nothing (the operator ignores status-only updates), a spec change does.
 */
async function forgeOwnership(name: string, deploymentId: string, imageUri: string): Promise<void> {
  const object = await getAttacker(name);
  await stack.client.mergePatchStatus(AGENT_DEPLOYMENTS, ATTACKER_NAMESPACE, name, {
    status: { ownership: { uid: object?.metadata.uid, deploymentId } },
  });
  await stack.client.mergePatch(AGENT_DEPLOYMENTS, ATTACKER_NAMESPACE, name, {
    spec: { sourceRevisionConfig: { imageUri } },
  });
}

/** Stalled with `reason`, computed from the object's current generation. */

async function deleteAttacker(name: string): Promise<void> {
  await stack.client.delete(AGENT_DEPLOYMENTS, ATTACKER_NAMESPACE, name);
  await stack.waitUntil(async () => (await getAttacker(name)) === undefined, `${name} is gone`);
}

const stalledWith =
  (reason: string) =>
  (object: AgentDeploymentObject): boolean => {
    const stalled = object.status?.conditions?.find((c) => c.type === 'Stalled');
    return (
      stalled?.status === 'True' &&
      stalled.reason === reason &&
      stalled.observedGeneration === object.metadata.generation
    );
  };

/**
 * The victim after the attack: the operator has looked at it again since (a batched list
 * naming its id went through the proxy), nothing was sent to its id but reads, its
 * deployment is unchanged and it is Ready; no secret anywhere.
 */
async function expectVictimUntouched(attackerNames: readonly string[]): Promise<void> {
  const mark = proxy.requests.length;
  await stack.waitUntil(
    async () =>
      proxy.requests.slice(mark).some((r) => r.method === 'GET' && r.path.includes(victimId)) &&
      isReady(await stack.get('victim')),
    'the operator has looked at the victim again',
  );
  const writesToVictim = proxy.requests.filter(
    (r) => r.method !== 'GET' && r.path.split('?')[0]?.includes(victimId),
  );
  expect(writesToVictim).toEqual([]);
  expect(await victimDeployment()).toEqual(victimBefore);
  const now = await stack.get('victim');
  expect(now.status?.ownership).toEqual(victim.status?.ownership);
  expect(condition(now, 'Ready')?.status).toBe('True');

  const attackers = (await Promise.all(attackerNames.map((name) => getAttacker(name)))).filter(
    (object): object is AgentDeploymentObject => object !== undefined,
  );
  const health = await Promise.all([now, ...attackers].map((o) => runHealthScript(HEALTH_SCRIPT, o)));
  expect(health[0]?.status).toBe('Healthy');
  const events = await stack.client.list<KubeObject>(EVENTS);
  const places: Record<string, string> = {
    logs: stack.logLines.join('\n'),
    events: JSON.stringify(events.items),
    status: JSON.stringify([now, ...attackers].map((object) => object.status)),
    metrics: (await stack.operators[0]?.registry.metrics()) ?? '',
    'Argo CD health': JSON.stringify(health),
  };
  expect(stack.logLines.some((line) => line.includes('"level":20'))).toBe(true);
  for (const value of [VICTIM_SECRET, ATTACKER_SECRET]) {
    for (const form of secretForms(value)) {
      for (const [place, text] of Object.entries(places)) {
        expect(text, `${place} hold ${JSON.stringify(form)}`).not.toContain(form);
      }
    }
  }
  // No request path ever carried an id that is not a UUID.
  for (const request of proxy.requests) {
    const [path] = request.path.split('?');
    const id = /\/v2\/deployments\/([^/]+)/.exec(path ?? '')?.[1];
    if (id !== undefined) expect(id, `${request.method} ${request.path}`).toMatch(UUID);
  }
}

describe('forged deployment-id annotation', () => {
  it('with another spec.name: the attacker gets a deployment of its own, and deleting it deletes only that', async () => {
    const object = attackerObject('attacker');
    object.metadata.annotations = { 'agentplatform.io/deployment-id': victimId };
    await stack.client.create(AGENT_DEPLOYMENTS, object);
    const own = await waitAttacker('attacker', isReady, 'Ready on its own deployment');
    const ownId = own.status?.ownership?.deploymentId;
    expect(ownId).toMatch(UUID);
    expect(ownId).not.toBe(victimId);
    await deleteAttacker('attacker');
    expect(proxy.requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([
      `/v2/deployments/${ownId}`,
    ]);
    await expectVictimUntouched([]);
  });

  it('with the victim’s spec.name: NameConflict, no control-plane write at all', async () => {
    const object = attackerObject('attacker', { name: 'victim' });
    object.metadata.annotations = { 'agentplatform.io/deployment-id': victimId };
    const writesBefore = proxy.requests.filter((r) => r.method !== 'GET').length;
    await stack.client.create(AGENT_DEPLOYMENTS, object);
    const stalled = await waitAttacker('attacker', stalledWith('NameConflict'), 'NameConflict');
    expect(stalled.status?.ownership?.deploymentId).toBeUndefined();
    await deleteAttacker('attacker');
    expect(proxy.requests.filter((r) => r.method !== 'GET').length).toBe(writesBefore);
    await expectVictimUntouched([]);
  });
});

describe('forged status.ownership (a tenant holding agentdeployments/status)', () => {
  it('naming the victim’s id from an object of another name: OwnershipConflict, no PATCH, and deletion deletes nothing of the victim', async () => {
    await stack.client.create(AGENT_DEPLOYMENTS, attackerObject('attacker'));
    const own = await waitAttacker('attacker', isReady, 'Ready on its own deployment');
    const ownId = own.status?.ownership?.deploymentId ?? '';
    // With a spec change that would PATCH the deployment it owns.
    await forgeOwnership('attacker', victimId, 'registry.example/attacker:evil-2');
    const stalled = await waitAttacker('attacker', stalledWith('OwnershipConflict'), 'OwnershipConflict');
    expect(condition(stalled, 'Stalled')?.message).not.toContain('"victim"');
    await deleteAttacker('attacker');
    await expectVictimUntouched([]);
    // Its own deployment is left behind (its record was overwritten): never the victim's.
    expect((await stack.deployments()).map((d) => d.id).sort()).toEqual([ownId, victimId].sort());
  });

  it('naming the victim’s id from a younger object of the same spec.name: the older record wins, no PATCH, no DELETE', async () => {
    // Younger by the clock's one-second precision (within one second neither record is trusted).
    const victimSecond = victim.metadata.creationTimestamp ?? '';
    await stack.waitUntil(
      () => Promise.resolve(new Date().toISOString().slice(0, 19) > victimSecond.slice(0, 19)),
      'a second later than the victim',
    );
    await stack.client.create(AGENT_DEPLOYMENTS, attackerObject('attacker', { name: 'victim' }));
    await waitAttacker('attacker', stalledWith('NameConflict'), 'NameConflict');
    await forgeOwnership('attacker', victimId, 'registry.example/attacker:evil-2');
    const stalled = await waitAttacker(
      'attacker',
      stalledWith('OwnershipConflict'),
      'OwnershipConflict naming the older owner',
    );
    expect(condition(stalled, 'Stalled')?.message).toContain(`${NAMESPACE}/victim`);
    await deleteAttacker('attacker');
    await expectVictimUntouched([]);
  });

  it('with ids that are not UUIDs: ignored (the object owns nothing), never sent, no batched list fails', async () => {
    const object = attackerObject('injector');
    object.metadata.annotations = { 'agentplatform.io/deployment-id': `${victimId}/../${victimId}` };
    await stack.client.create(AGENT_DEPLOYMENTS, object);
    await waitAttacker('injector', isReady, 'Ready');
    const injections = [
      `${victimId}?force=true`,
      `${victimId.slice(0, 8)},${victimId}`,
      '../../v2/deployments',
      `${victimId}%2F..`,
    ];
    for (const [index, injected] of injections.entries()) {
      await stack.client.mergePatch(AGENT_DEPLOYMENTS, ATTACKER_NAMESPACE, 'injector', {
        metadata: { annotations: { 'agentplatform.io/deployment-id': injected } },
      });
      await forgeOwnership('injector', injected, `registry.example/attacker:inject-${index}`);
      // A record that is not a UUID is no record: the object owns nothing, and its name is
      // taken by the deployment it made before, which it no longer claims.
      await waitAttacker('injector', stalledWith('NameConflict'), `NameConflict after ${injected}`);
    }
    const stats = await stack.admin<{ byRoute: Array<{ method: string; route: string; status: number }> }>(
      'GET',
      '/stats',
    );
    const failedLists = stats.byRoute.filter(
      (row) => row.method === 'GET' && row.route === '/v2/deployments' && row.status >= 400,
    );
    expect(failedLists).toEqual([]);
    await expectVictimUntouched(['injector']);
  });
});

describe('name squatting and adoption', () => {
  it('a later object with the victim’s name and adoptExisting: NameConflict naming the owner, no write', async () => {
    const writesBefore = proxy.requests.filter((r) => r.method !== 'GET').length;
    await stack.client.create(
      AGENT_DEPLOYMENTS,
      attackerObject('squatter', { name: 'victim', adoptExisting: true }),
    );
    const stalled = await waitAttacker('squatter', stalledWith('NameConflict'), 'NameConflict');
    expect(condition(stalled, 'Stalled')?.message).toContain(`${NAMESPACE}/victim`);
    expect(proxy.requests.filter((r) => r.method !== 'GET').length).toBe(writesBefore);
    await expectVictimUntouched(['squatter']);
  });

  it('adopting a deployment no object manages is refused outside --adoption-namespaces, allowed inside', async () => {
    const legacy = await stack.api<{ id: string }>('POST', '/v2/deployments', {
      name: 'legacy',
      source: 'external_container',
      source_config: { listener_id: listenerId },
      source_revision_config: { image_uri: 'registry.example/legacy:1' },
      secrets: [],
    });
    expect(legacy.status).toBe(201);
    await stack.client.create(AGENT_DEPLOYMENTS, attackerObject('legacy', { adoptExisting: true }));
    const refused = await waitAttacker('legacy', stalledWith('AdoptionNotAllowed'), 'AdoptionNotAllowed');
    expect(condition(refused, 'Stalled')?.message).toContain(
      `adoption is permitted only from the namespaces ${NAMESPACE}`,
    );
    expect(proxy.requests.filter((r) => r.method !== 'GET' && r.path.includes(legacy.body.id))).toEqual([]);
    await deleteAttacker('legacy');
    expect(proxy.requests.filter((r) => r.method !== 'GET' && r.path.includes(legacy.body.id))).toEqual([]);

    // The permitted namespace adopts it: the rule is the namespace, not a blanket refusal.
    await stack.apply(containerAgent('legacy', listenerId, { adoptExisting: true }));
    const adopted = await stack.waitFor('legacy', isReady, 'Ready after adoption');
    expect(adopted.status?.ownership?.deploymentId).toBe(legacy.body.id);
    await expectVictimUntouched([]);
  });

  it('referencing the victim’s Secret by name reads nothing across namespaces', async () => {
    await stack.client.create(
      AGENT_DEPLOYMENTS,
      attackerObject('thief', { secrets: [secretRef('victim-secrets')] }),
    );
    const waiting = await waitAttacker(
      'thief',
      (o) => condition(o, 'Ready')?.reason === 'SecretNotFound',
      'SecretNotFound',
    );
    expect(condition(waiting, 'Ready')?.message).toContain('"victim-secrets" not found');
    expect((await stack.deployments()).filter((d) => d.name === 'thief')).toEqual([]);
    await expectVictimUntouched(['thief']);
  });
});

describe('spec.export and spec.smokeTest.headers', () => {
  const CONFIG_MAPS = { group: '', version: 'v1', plural: 'configmaps' };

  it('naming a ConfigMap another component created leaves it untouched; no namespace field reaches another namespace', async () => {
    const foreign = await stack.client.create<KubeObject & { data?: Record<string, string> }>(CONFIG_MAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'payments-config', namespace: ATTACKER_NAMESPACE },
      data: { ENDPOINT: 'https://payments.internal' },
    });
    await stack.client.create(
      AGENT_DEPLOYMENTS,
      // A namespace field is not part of the schema: the API server prunes it.
      attackerObject('squatter', { export: { configMapName: 'payments-config', namespace: NAMESPACE } }),
    );
    const refused = await waitAttacker(
      'squatter',
      (o) => condition(o, 'Exported')?.reason === 'ExportConflict',
      'ExportConflict',
    );
    expect(condition(refused, 'Exported')?.message).toContain(
      'spec.export.configMapName: ConfigMap "payments-config"',
    );
    const after = await stack.client.get<KubeObject & { data?: Record<string, string> }>(
      CONFIG_MAPS,
      ATTACKER_NAMESPACE,
      'payments-config',
    );
    expect(after.metadata.resourceVersion).toBe(foreign.metadata.resourceVersion);
    expect(after.data).toEqual({ ENDPOINT: 'https://payments.internal' });
    const victimNamespace = await stack.client.list<KubeObject>(CONFIG_MAPS, { namespace: NAMESPACE });
    expect(victimNamespace.items.map((configMap) => configMap.metadata.name)).not.toContain(
      'payments-config',
    );
    await expectVictimUntouched(['squatter']);
  });

  it("a smoke-test header naming the victim's Secret reads nothing across namespaces; the credential header cannot be set", async () => {
    const smokeTest = {
      input: { messages: [{ role: 'user', content: 'ping' }] },
      // Its own key: the agent's address is not one the operator's key may go to here.
      apiKeySecretRef: { name: 'attacker-secrets', key: 'token' },
      headers: [
        { name: 'x-user-token', valueFrom: { secretKeyRef: { name: 'victim-secrets', key: 'token' } } },
      ],
    };
    await stack.client.create(AGENT_DEPLOYMENTS, attackerObject('header-thief', { smokeTest }));
    const failed = await waitAttacker(
      'header-thief',
      (o) => condition(o, 'SmokeTestPassed')?.reason === 'SmokeTestFailed',
      'SmokeTestFailed',
    );
    expect(condition(failed, 'SmokeTestPassed')?.message).toContain(
      'Secret "victim-secrets" has no key "token" (or it is empty)',
    );
    for (const name of ['x-api-key', 'X-Auth-Scheme', 'authorization']) {
      const forged = {
        ...smokeTest,
        headers: [{ name, valueFrom: { secretKeyRef: { name: 'attacker-secrets', key: 'token' } } }],
      };
      await expect(
        stack.client.create(AGENT_DEPLOYMENTS, attackerObject('key-swap', { smokeTest: forged })),
      ).rejects.toThrow(/spec\.smokeTest\.headers\[0\]\.name/);
    }
    await expectVictimUntouched(['header-thief']);
  });
});
