// Objects routed by their connection, end to end: the operator started as `run` starts it, the
// default control plane (its flags), and a US and an EU control plane served as
// `emulate control-plane --region us --region eu` serves them, each with its own key. Each
// object's deployment lands on its own connection's control plane and on no other; the same
// name on two control planes is no conflict; a connection not Ready, not found or not allowed
// stalls its objects with zero calls, and a connection that becomes Ready heals them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLUSTER_PLATFORM_CONNECTIONS, PLATFORM_CONNECTIONS } from '../../src/reconcilers/connection/setup.js';
import { AGENT_DEPLOYMENTS } from '../../src/operator/operator.js';
import { isNotFound } from '../../src/runtime/kube/errors.js';
import { startRegionalEmulators, type RegionalEmulators } from '../../src/sim/controlplane/regions.js';
import type { StatsSnapshot } from '../../src/sim/http/stats.js';
import {
  condition,
  containerAgent,
  isReady,
  NAMESPACE,
  SECRETS,
  Stack,
  type AgentDeploymentObject,
} from '../operator/harness.js';
import { applyConnectionCrds, startOkServer, type OkServer } from './support/platform.js';

const NAMESPACES = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };
const EU_NAMESPACE = 'team-eu';
const US_KEY = 'us-workspace-key-7c1d0e';
const EU_KEY = 'eu-workspace-key-3f9a42';
const REVOKED_KEY = 'eu-revoked-key-1b2c3d';

let stack: Stack;
let regions: RegionalEmulators;
let platform: OkServer;

function region(name: 'us' | 'eu') {
  const found = regions.regions.find((r) => r.region === name);
  if (found === undefined) throw new Error(`no ${name} region`);
  return found;
}

async function listenerOf(name: 'us' | 'eu', apiKey: string): Promise<string> {
  const response = await fetch(`${region(name).url}/v2/listeners`, { headers: { 'x-api-key': apiKey } });
  const body = (await response.json()) as { resources: Array<{ id: string }> };
  const id = body.resources[0]?.id;
  if (id === undefined) throw new Error(`the ${name} tenant has no listener`);
  return id;
}

async function writesOn(name: 'us' | 'eu'): Promise<number> {
  const { emulator, url } = region(name);
  const response = await fetch(`${url}/_emulator/stats`, {
    headers: { authorization: `Bearer ${emulator.adminToken}` },
  });
  const stats = (await response.json()) as StatsSnapshot;
  return stats.byRoute.filter((c) => c.method !== 'GET').reduce((sum, c) => sum + c.count, 0);
}

const namesOn = (name: 'us' | 'eu') =>
  region(name)
    .emulator.deployments()
    .map((d) => String(d.name));

async function secret(namespace: string, name: string, apiKey: string): Promise<void> {
  await stack.client.create(SECRETS, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    data: { apiKey: Buffer.from(apiKey).toString('base64') },
  });
}

async function platformConnection(namespace: string, name: 'us' | 'eu', secretName: string): Promise<void> {
  await stack.client.create(PLATFORM_CONNECTIONS, {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'PlatformConnection',
    metadata: { name, namespace },
    spec: {
      controlPlaneUrl: region(name).url,
      platformApiUrl: platform.url,
      apiKeySecretRef: { name: secretName, key: 'apiKey' },
    },
  });
}

function agent(
  namespace: string,
  name: string,
  listenerId: string,
  connectionRef?: { kind: string; name: string },
): AgentDeploymentObject {
  const object = containerAgent(name, listenerId, connectionRef === undefined ? {} : { connectionRef });
  return { ...object, metadata: { ...object.metadata, namespace } };
}

/** The object once `predicate` holds (stack.waitFor looks in the harness's namespace only). */
async function waitFor(
  namespace: string,
  name: string,
  predicate: (object: AgentDeploymentObject) => boolean,
  what: string,
): Promise<AgentDeploymentObject> {
  let last: AgentDeploymentObject | undefined;
  try {
    await stack.waitUntil(async () => {
      try {
        last = await stack.client.get<AgentDeploymentObject>(AGENT_DEPLOYMENTS, namespace, name);
        return predicate(last);
      } catch (error) {
        // Not created yet; any other API error fails the wait.
        if (isNotFound(error)) return false;
        throw error;
      }
    }, `${namespace}/${name} ${what}`);
  } catch (error) {
    throw new Error(`${String(error)}; last status: ${JSON.stringify(last?.status)}`);
  }
  if (last === undefined) throw new Error(`${namespace}/${name} not found`);
  return last;
}

function stalledWith(reason: string) {
  return (o: AgentDeploymentObject) =>
    condition(o, 'Stalled')?.status === 'True' && condition(o, 'Stalled')?.reason === reason;
}

beforeEach(async () => {
  stack = await Stack.start({ withoutOperator: true });
  regions = await startRegionalEmulators([
    { region: 'us', options: { apiKeys: [{ key: US_KEY }], revisionPhaseMs: 20 } },
    { region: 'eu', options: { apiKeys: [{ key: EU_KEY }], revisionPhaseMs: 20 } },
  ]);
  platform = await startOkServer();
  await applyConnectionCrds(stack.client);
  await stack.client.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: EU_NAMESPACE, labels: { 'agentplatform.io/region': 'eu' } },
  });
});

afterEach(async () => {
  await stack.close();
  await regions.close();
  await platform.close();
});

describe('objects routed by their connection', () => {
  it('each deployment lands on its own region only; the same name in two regions is no conflict; a connection not Ready stalls with zero calls and heals', async () => {
    await secret(NAMESPACE, 'us-key', US_KEY);
    await secret(EU_NAMESPACE, 'eu-key', REVOKED_KEY);
    await platformConnection(NAMESPACE, 'us', 'us-key');
    await platformConnection(EU_NAMESPACE, 'eu', 'eu-key');
    await stack.startOperator();

    const usListener = await listenerOf('us', US_KEY);
    const euListener = await listenerOf('eu', EU_KEY);
    await stack.client.create(
      AGENT_DEPLOYMENTS,
      agent(NAMESPACE, 'agent', usListener, { kind: 'PlatformConnection', name: 'us' }),
    );
    await stack.client.create(
      AGENT_DEPLOYMENTS,
      agent(EU_NAMESPACE, 'agent', euListener, { kind: 'PlatformConnection', name: 'eu' }),
    );
    await stack.client.create(AGENT_DEPLOYMENTS, agent(NAMESPACE, 'plain', await stack.listenerId()));

    // The EU key is revoked: its connection is not Ready, and its object waits without a call.
    const waiting = await waitFor(
      EU_NAMESPACE,
      'agent',
      stalledWith('ConnectionNotReady'),
      'Stalled ConnectionNotReady',
    );
    expect(condition(waiting, 'Stalled')?.message).toMatch(
      /^spec\.connectionRef: PlatformConnection team-eu\/eu is not Ready: /,
    );
    await waitFor(NAMESPACE, 'agent', isReady, 'Ready on the US connection');
    await waitFor(NAMESPACE, 'plain', isReady, 'Ready on the default connection');
    expect(await writesOn('eu')).toBe(0);

    // The key is fixed: the connection goes Ready and wakes its object, without a restart.
    await stack.client.mergePatch(SECRETS, EU_NAMESPACE, 'eu-key', {
      data: { apiKey: Buffer.from(EU_KEY).toString('base64') },
    });
    await waitFor(EU_NAMESPACE, 'agent', isReady, 'Ready on the EU connection');

    expect(namesOn('us')).toEqual(['agent']);
    expect(namesOn('eu')).toEqual(['agent']);
    expect((await stack.deployments()).map((d) => d.name)).toEqual(['plain']);
    const visible = [stack.logLines.join('\n'), JSON.stringify(await stack.events())].join('\n');
    for (const key of [US_KEY, EU_KEY, REVOKED_KEY]) expect(visible).not.toContain(key.slice(0, 12));
  }, 90_000);

  it("another namespace's PlatformConnection is not found; a ClusterPlatformConnection serves only the namespaces its selector matches", async () => {
    await secret(NAMESPACE, 'us-key', US_KEY);
    await platformConnection(NAMESPACE, 'us', 'us-key');
    // ClusterPlatformConnection keys live in the operator's namespace (the harness's `default`).
    await secret('default', 'eu-shared-key', EU_KEY);
    await stack.client.create(CLUSTER_PLATFORM_CONNECTIONS, {
      apiVersion: 'agentplatform.io/v1alpha1',
      kind: 'ClusterPlatformConnection',
      metadata: { name: 'eu' },
      spec: {
        controlPlaneUrl: region('eu').url,
        platformApiUrl: platform.url,
        apiKeySecretRef: { name: 'eu-shared-key', key: 'apiKey' },
        namespaceSelector: { matchLabels: { 'agentplatform.io/region': 'eu' } },
      },
    });
    await stack.startOperator();
    const euListener = await listenerOf('eu', EU_KEY);

    await stack.client.create(
      AGENT_DEPLOYMENTS,
      agent(EU_NAMESPACE, 'borrower', await listenerOf('us', US_KEY), {
        kind: 'PlatformConnection',
        name: 'us',
      }),
    );
    await stack.client.create(
      AGENT_DEPLOYMENTS,
      agent(NAMESPACE, 'outsider', euListener, { kind: 'ClusterPlatformConnection', name: 'eu' }),
    );
    await stack.client.create(
      AGENT_DEPLOYMENTS,
      agent(EU_NAMESPACE, 'member', euListener, { kind: 'ClusterPlatformConnection', name: 'eu' }),
    );

    const borrower = await waitFor(EU_NAMESPACE, 'borrower', stalledWith('ConnectionNotFound'), 'refused');
    expect(condition(borrower, 'Stalled')?.message).toBe(
      'spec.connectionRef: PlatformConnection team-eu/us not found (a PlatformConnection serves only its own namespace)',
    );
    const outsider = await waitFor(NAMESPACE, 'outsider', stalledWith('ConnectionNotAllowed'), 'refused');
    expect(condition(outsider, 'Stalled')?.message).toBe(
      'spec.connectionRef: ClusterPlatformConnection eu: its namespaceSelector does not match namespace team-a',
    );
    await waitFor(EU_NAMESPACE, 'member', isReady, 'Ready through the cluster connection');

    expect(namesOn('eu')).toEqual(['member']);
    expect(namesOn('us')).toEqual([]);
    expect(await writesOn('us')).toBe(0);
  }, 90_000);

  it("resolves listenerRef by name on the object's own connection; an unknown name is Stalled with the names that exist", async () => {
    await secret(EU_NAMESPACE, 'eu-key', EU_KEY);
    await platformConnection(EU_NAMESPACE, 'eu', 'eu-key');
    await stack.startOperator();
    const response = await fetch(`${region('eu').url}/v2/listeners`, { headers: { 'x-api-key': EU_KEY } });
    const listener = ((await response.json()) as { resources: Array<{ id: string; compute_id: string }> })
      .resources[0];
    if (listener === undefined) throw new Error('the EU tenant has no listener');

    const byName = (name: string, listenerName: string): AgentDeploymentObject => {
      const object = agent(EU_NAMESPACE, name, '', { kind: 'PlatformConnection', name: 'eu' });
      const { listenerId: _id, ...sourceConfig } = object.spec.sourceConfig as Record<string, unknown>;
      return {
        ...object,
        spec: { ...object.spec, sourceConfig: { ...sourceConfig, listenerRef: { name: listenerName } } },
      };
    };
    await stack.client.create(AGENT_DEPLOYMENTS, byName('named', listener.compute_id));
    await stack.client.create(AGENT_DEPLOYMENTS, byName('misnamed', 'no-such-cluster'));

    await waitFor(EU_NAMESPACE, 'named', isReady, 'Ready through the listener named');
    const misnamed = await waitFor(EU_NAMESPACE, 'misnamed', stalledWith('InvalidSpec'), 'Stalled');
    expect(condition(misnamed, 'Stalled')?.message).toBe(
      `spec.sourceConfig.listenerRef.name: no listener named "no-such-cluster"; the workspace has "${listener.compute_id}"`,
    );
    const created = region('eu').emulator.deployments();
    expect(created.map((d) => [d.name, (d.source_config as { listener_id?: string }).listener_id])).toEqual([
      ['named', listener.id],
    ]);
  }, 60_000);
});
