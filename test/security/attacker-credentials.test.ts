// The attacker suite, credentials: a tenant with edit rights in `team-b` tries to make the
// operator send a shared key where the tenant can read it, to use a connection it was not
// given, to take a deployment another team orphaned, and to use the operator's pod as a
// probe of internal addresses. A capture server on loopback stands in for the attacker's
// host; it must never see a shared key, in any encoding, and no key may reach status,
// events or logs.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PlatformConnectionObject } from '../../src/api/connection/index.js';
import { parseHostPatterns } from '../../src/egress/host-patterns.js';
import { CLUSTER_PLATFORM_CONNECTIONS, PLATFORM_CONNECTIONS } from '../../src/reconcilers/connection/setup.js';
import type { OperatorConfig } from '../../src/operator/config.js';
import { AGENT_DEPLOYMENTS } from '../../src/operator/operator.js';
import { isNotFound } from '../../src/runtime/kube/errors.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import { applyConnectionCrds } from '../connections/support/platform.js';
import {
  API_KEY,
  EVENTS,
  NAMESPACE,
  SECRETS,
  Stack,
  condition,
  containerAgent,
  isReady,
  type AgentDeploymentObject,
} from '../operator/harness.js';
import { keyForms, startCaptureServer, type CaptureServer } from './capture-server.js';
import { tenantObjects } from './tenant-objects.js';

const ATTACKER = 'team-b';
const NAMESPACES = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };
const ATTACKER_OWN_KEY = 'team-b-own-agent-key-5d1e9a';
const SHARED_CLUSTER_KEY = 'cluster-connection-key-77c2f0';
const SMOKE = { input: { messages: [{ role: 'user', content: 'ping' }] }, expect: { contains: 'pong' } };

let stack: Stack;
let capture: CaptureServer;
let listenerId: string;

async function start(operator: Partial<OperatorConfig> = {}): Promise<void> {
  stack = await Stack.start({
    withoutOperator: true,
    controlPlane: { apiKeys: [{ key: API_KEY }, { key: SHARED_CLUSTER_KEY }] },
  });
  await applyConnectionCrds(stack.client);
  await stack.client.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ATTACKER },
  });
  await stack.startOperator({ resyncPeriodMs: 1_000, ...operator });
  listenerId = await stack.listenerId();
}

beforeEach(async () => {
  capture = await startCaptureServer();
});
afterEach(async () => {
  await stack.close();
  await capture.close();
});

function inAttacker(object: AgentDeploymentObject): AgentDeploymentObject {
  return { ...object, metadata: { ...object.metadata, namespace: ATTACKER } };
}

/** An external_container agent whose URL the tenant chose: the capture server. */
function agentAtCapture(name: string, smokeTest: Record<string, unknown> = SMOKE): AgentDeploymentObject {
  const object = containerAgent(name, listenerId, { smokeTest });
  const spec = object.spec as { sourceConfig: Record<string, unknown> };
  spec.sourceConfig.customUrl = `${capture.url}/agent`;
  return inAttacker(object);
}

const team = tenantObjects(() => stack, ATTACKER);
const attacker = team.get;
const waitAttacker = team.waitFor;

const reason = (type: string, value: string) => (object: AgentDeploymentObject) =>
  condition(object, type)?.reason === value &&
  object.status?.observedGeneration === object.metadata.generation;

/** Status, events and the operator's debug log, as one text to search for a key. */
async function everythingShown(): Promise<string> {
  const objects = await stack.client.list<AgentDeploymentObject>(AGENT_DEPLOYMENTS, {});
  const events = [
    ...(await stack.client.list<KubeObject>(EVENTS, { namespace: NAMESPACE })).items,
    ...(await stack.client.list<KubeObject>(EVENTS, { namespace: ATTACKER })).items,
  ];
  return [JSON.stringify(objects.items.map((o) => o.status)), JSON.stringify(events), ...stack.logLines].join(
    '\n',
  );
}

function expectNoForm(text: string, key: string, where: string): void {
  for (const form of keyForms(key)) expect(text.includes(form), `${where} holds ${form}`).toBe(false);
}

async function putAttackerSecret(name: string, data: Record<string, string>): Promise<void> {
  await stack.client.create(SECRETS, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ATTACKER },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  });
}

describe('a shared key never goes where a tenant points it', () => {
  it('a customUrl on the attacker host with a smoke test: SmokeTestRefused, no call, the capture host sees nothing', async () => {
    // Loopback is allowed here, so that the allow-list (not the address policy) is what refuses.
    await start({ allowPrivateNetworks: true });
    await stack.apply(agentAtCapture('thief'));
    const stalled = await waitAttacker('thief', reason('Ready', 'SmokeTestRefused'), 'SmokeTestRefused');
    expect(condition(stalled, 'Stalled')?.status).toBe('True');
    expect(condition(stalled, 'Ready')?.message).toContain(
      `the agent URL's host ${capture.hostPort} was not assigned by the platform and is not in the operator's --agent-hosts`,
    );
    expect(condition(stalled, 'Ready')?.message).toContain('spec.smokeTest.apiKeySecretRef');
    // Another pass (a resync) changes nothing: still no request.
    const first = stalled.metadata.resourceVersion;
    await stack.waitUntil(
      async () =>
        (await stack.events()).length >= 0 && (await attacker('thief'))?.metadata.resourceVersion === first,
      'a settled object',
    );
    expect(capture.requests).toEqual([]);
    expectNoForm(await everythingShown(), API_KEY, 'status, events or logs');
  });

  it("with the tenant's own key the call goes there carrying that key only; the echoed key is redacted in status", async () => {
    await start({ allowPrivateNetworks: true });
    await putAttackerSecret('own-key', { token: ATTACKER_OWN_KEY });
    await stack.apply(
      agentAtCapture('own', { ...SMOKE, apiKeySecretRef: { name: 'own-key', key: 'token' } }),
    );
    // The capture agent answers without "pong": the verdict quotes its reply, which echoes the key.
    const failed = await waitAttacker('own', reason('Ready', 'SmokeTestFailed'), 'SmokeTestFailed');
    expect(capture.requests.length).toBeGreaterThan(0);
    for (const request of capture.requests) expect(request.headers['x-api-key']).toBe(ATTACKER_OWN_KEY);
    expectNoForm(capture.seen(), API_KEY, 'the capture host');
    expect(condition(failed, 'Ready')?.message).toContain('[redacted]');
    const shown = await everythingShown();
    expectNoForm(shown, ATTACKER_OWN_KEY, 'status, events or logs');
    expectNoForm(shown, API_KEY, 'status, events or logs');
  });

  it("a host the key's owner listed gets the key: the allow-list is what decides", async () => {
    await start({ allowPrivateNetworks: true, agentHosts: parseHostPatterns([capture.hostPort], 'test') });
    await stack.apply(agentAtCapture('listed'));
    await waitAttacker('listed', reason('Ready', 'SmokeTestFailed'), 'SmokeTestFailed (called)');
    expect(capture.requests.map((r) => r.headers['x-api-key'])).toContain(API_KEY);
    // Even so, the key the agent echoed back is not quoted in status.
    expectNoForm(await everythingShown(), API_KEY, 'status, events or logs');
  });

  it('user info in the URL that names an allowed host first is refused outright', async () => {
    await start({ allowPrivateNetworks: true, agentHosts: parseHostPatterns(['allowed.example'], 'test') });
    const object = agentAtCapture('userinfo');
    const spec = object.spec as { sourceConfig: Record<string, unknown> };
    spec.sourceConfig.customUrl = `http://allowed.example@${capture.hostPort}/agent`;
    await stack.apply(object);
    const refused = await waitAttacker('userinfo', reason('Ready', 'SmokeTestRefused'), 'SmokeTestRefused');
    expect(condition(refused, 'Ready')?.message).toContain('user info');
    expect(capture.requests).toEqual([]);
  });
});

describe('a cluster-wide key serves only the namespaces its owner names', () => {
  it('a ClusterPlatformConnection without namespaceSelector: ConnectionNotAllowed, nothing created with its key', async () => {
    await start();
    await stack.client.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'shared-key', namespace: 'default' },
      data: { apiKey: Buffer.from(SHARED_CLUSTER_KEY).toString('base64') },
    });
    await stack.client.create(CLUSTER_PLATFORM_CONNECTIONS, {
      apiVersion: 'agentplatform.io/v1alpha1',
      kind: 'ClusterPlatformConnection',
      metadata: { name: 'shared' },
      spec: {
        controlPlaneUrl: stack.controlPlane.url,
        platformApiUrl: stack.controlPlane.url,
        apiKeySecretRef: { name: 'shared-key', key: 'apiKey' },
      },
    });
    // A listener of the shared key's own workspace, so that a create through it succeeds.
    const listeners = await fetch(`${stack.controlPlane.url}/v2/listeners`, {
      headers: { 'x-api-key': SHARED_CLUSTER_KEY },
    });
    const sharedListener = ((await listeners.json()) as { resources: Array<{ id: string }> }).resources[0]
      ?.id;
    const object = inAttacker(containerAgent('borrower', sharedListener ?? ''));
    (object.spec as Record<string, unknown>).connectionRef = {
      kind: 'ClusterPlatformConnection',
      name: 'shared',
    };
    await stack.apply(object);
    const refused = await waitAttacker(
      'borrower',
      reason('Stalled', 'ConnectionNotAllowed'),
      'ConnectionNotAllowed',
    );
    expect(condition(refused, 'Stalled')?.message).toContain(
      'it has no namespaceSelector, so it serves no namespace',
    );
    expect((await stack.deployments()).some((d) => d.name === 'borrower')).toBe(false);

    // The owner opens it to every namespace ({}): the same object is served.
    await stack.client.mergePatch(CLUSTER_PLATFORM_CONNECTIONS, undefined, 'shared', {
      spec: { namespaceSelector: {} },
    });
    await waitAttacker('borrower', isReady, 'Ready once the selector allows it');
  }, 60_000);
});

describe('an orphaned deployment stays with the team that orphaned it', () => {
  it('another namespace cannot adopt it by default; the orphaning namespace can', async () => {
    // The default install: no namespace may adopt what it did not orphan.
    await start({ adoptionNamespaces: [] });
    await stack.apply(containerAgent('migrating', listenerId, { deletionPolicy: 'Orphan' }));
    const owned = await stack.waitFor('migrating', isReady, 'Ready');
    const id = owned.status?.ownership?.deploymentId ?? '';
    await stack.client.delete(AGENT_DEPLOYMENTS, NAMESPACE, 'migrating');
    await stack.waitUntil(async () => {
      try {
        await stack.get('migrating');
        return false;
      } catch (error) {
        if (isNotFound(error)) return true;
        throw error;
      }
    }, 'the orphaning object is gone');
    const before = JSON.stringify((await stack.deployments()).find((d) => d.id === id));

    await stack.apply(
      inAttacker(
        containerAgent('migrating', listenerId, {
          adoptExisting: true,
          sourceRevisionConfig: { imageUri: 'evil:1' },
        }),
      ),
    );
    const refused = await waitAttacker(
      'migrating',
      reason('Stalled', 'AdoptionNotAllowed'),
      'AdoptionNotAllowed',
    );
    expect(condition(refused, 'Stalled')?.message).toContain(id);
    expect(JSON.stringify((await stack.deployments()).find((d) => d.id === id))).toBe(before);
    await stack.client.delete(AGENT_DEPLOYMENTS, ATTACKER, 'migrating');
    await stack.waitUntil(
      async () => (await attacker('migrating')) === undefined,
      'the attacker object is gone',
    );
    // Deleting the refused object deletes nothing.
    expect((await stack.deployments()).some((d) => d.id === id)).toBe(true);

    await stack.apply(containerAgent('migrating', listenerId, { adoptExisting: true }));
    const adopted = await stack.waitFor('migrating', isReady, 'Ready after adopting back');
    expect(adopted.status?.ownership?.deploymentId).toBe(id);
  }, 60_000);
});

describe("the operator's pod is no probe of internal addresses", () => {
  it('a PlatformConnection to loopback or link-local is refused without a request; the reply is never quoted', async () => {
    await start({ allowPrivateNetworks: false });
    await putAttackerSecret('probe-key', { apiKey: ATTACKER_OWN_KEY });
    const probe = async (name: string, url: string) =>
      stack.client.create(PLATFORM_CONNECTIONS, {
        apiVersion: 'agentplatform.io/v1alpha1',
        kind: 'PlatformConnection',
        metadata: { name, namespace: ATTACKER },
        spec: {
          controlPlaneUrl: url,
          platformApiUrl: url,
          apiKeySecretRef: { name: 'probe-key', key: 'apiKey' },
        },
      });
    await probe('internal', capture.url);
    await probe('metadata', 'https://169.254.169.254/latest');
    const readyOf = async (name: string) => {
      const object = await stack.client.get<KubeObject & PlatformConnectionObject>(
        PLATFORM_CONNECTIONS,
        ATTACKER,
        name,
      );
      return object.status?.conditions?.find((c) => c.type === 'Ready');
    };
    for (const [name, says] of [
      ['internal', 'nor loopback or private ones without --allow-private-networks'],
      ['metadata', 'never reaches link-local or metadata addresses'],
    ] as const) {
      await stack.waitUntil(async () => (await readyOf(name)) !== undefined, `${name} probed`);
      expect(await readyOf(name), name).toMatchObject({ status: 'False', reason: 'AddressNotAllowed' });
      expect((await readyOf(name))?.message, name).toContain(says);
    }
    expect(capture.requests).toEqual([]);
    const shown = await everythingShown();
    expect(shown).not.toContain('messages');
    expectNoForm(shown, ATTACKER_OWN_KEY, 'status, events or logs');
  }, 60_000);

  it('a tenant-chosen agent URL on loopback with its own key is refused without --allow-private-networks', async () => {
    await start({ allowPrivateNetworks: false });
    await putAttackerSecret('own-key', { token: ATTACKER_OWN_KEY });
    await stack.apply(
      agentAtCapture('prober', { ...SMOKE, apiKeySecretRef: { name: 'own-key', key: 'token' } }),
    );
    const failed = await waitAttacker('prober', reason('Ready', 'SmokeTestFailed'), 'SmokeTestFailed');
    expect(condition(failed, 'Ready')?.message).toContain(
      'is a loopback address, refused unless the operator runs with --allow-private-networks',
    );
    expect(capture.requests).toEqual([]);
  });
});
