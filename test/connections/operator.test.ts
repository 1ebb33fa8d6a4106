// Connections end to end: the operator started as `run` starts it, the Kubernetes emulator
// with the three CRDs, the control-plane emulator checking keys, and a loopback /ok server for
// the platform API. A PlatformConnection goes Ready, a wrong key goes Ready=False and recovers
// when the Secret is fixed (no restart), and deleting a connection waits for its users.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PlatformConnectionObject } from '../../src/api/connection/index.js';
import {
  CLUSTER_PLATFORM_CONNECTIONS,
  PLATFORM_CONNECTIONS,
} from '../../src/reconcilers/connection/setup.js';
import { AGENT_DEPLOYMENTS } from '../../src/operator/operator.js';
import { isNotFound } from '../../src/runtime/kube/errors.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import { API_KEY, condition, containerAgent, NAMESPACE, SECRETS, Stack } from '../operator/harness.js';

const NAMESPACES = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };
import {
  applyConnectionCrds,
  createPlatformConnection,
  startOkServer,
  type OkServer,
} from './support/platform.js';

const TEAM_KEY = 'team-a-connection-key-55e1c0';
const WRONG_KEY = 'team-a-revoked-key-90ab3f';

let stack: Stack;
let platform: OkServer;
let platformUrl: string;

async function connectionObject(): Promise<PlatformConnectionObject> {
  return stack.client.get<KubeObject & PlatformConnectionObject>(PLATFORM_CONNECTIONS, NAMESPACE, 'team');
}

/** The PlatformConnection "team": the loopback platform API, its key in the Secret "team-key". */
function createTeamConnection(): Promise<void> {
  return createPlatformConnection(stack.client, {
    namespace: NAMESPACE,
    name: 'team',
    controlPlaneUrl: stack.controlPlane.url,
    platformApiUrl: platformUrl,
    secretName: 'team-key',
  });
}

async function waitForConnection(
  what: string,
  check: (c: PlatformConnectionObject) => boolean,
): Promise<void> {
  await stack.waitUntil(async () => {
    try {
      return check(await connectionObject());
    } catch (error) {
      // Not created yet; any other API error fails the wait.
      if (isNotFound(error)) return false;
      throw error;
    }
  }, what);
}

/** A listener of the key's own tenant: the default key's listener does not exist there. */
async function listenerIdFor(apiKey: string): Promise<string> {
  const response = await fetch(`${stack.controlPlane.url}/v2/listeners`, {
    headers: { 'x-api-key': apiKey },
  });
  const body = (await response.json()) as { resources: Array<{ id: string }> };
  const id = body.resources[0]?.id;
  if (id === undefined) throw new Error('the tenant has no listener');
  return id;
}

const ready = (c: PlatformConnectionObject) => c.status?.conditions?.find((x) => x.type === 'Ready');

beforeEach(async () => {
  stack = await Stack.start({
    withoutOperator: true,
    controlPlane: { apiKeys: [{ key: API_KEY }, { key: TEAM_KEY }] },
  });
  await applyConnectionCrds(stack.client);
  platform = await startOkServer();
  platformUrl = platform.url;
});

afterEach(async () => {
  await stack.close();
  await platform.close();
});

describe('connections in the operator', () => {
  it('Ready with a good key; a wrong key is Ready=False and recovers when the Secret is fixed; deletion waits for users', async () => {
    await stack.putSecret('team-key', { apiKey: WRONG_KEY });
    await createTeamConnection();
    await stack.startOperator();

    await waitForConnection('Ready=False (wrong key)', (c) => ready(c)?.reason === 'Unauthorized');
    await stack.putSecret('team-key', { apiKey: TEAM_KEY });
    await waitForConnection('Ready=True after the rotation', (c) => ready(c)?.status === 'True');
    const connection = await connectionObject();
    expect(connection.metadata.finalizers).toEqual(['agentplatform.io/connection-in-use']);
    expect(connection.status?.conditions?.find((c) => c.type === 'Reachable')?.status).toBe('True');

    await stack.client.create(
      AGENT_DEPLOYMENTS,
      containerAgent('uses-team', await listenerIdFor(TEAM_KEY), {
        connectionRef: { kind: 'PlatformConnection', name: 'team' },
      }),
    );
    await waitForConnection('used by one object', (c) => c.status?.usedBy === 1);
    // Deployed through its connection: the listener exists only in the team key's tenant.
    await stack.waitFor('uses-team', (o) => condition(o, 'Ready')?.status === 'True', 'Ready');
    expect((await stack.deployments()).map((d) => d.name)).toContain('uses-team');
    await stack.client.delete(PLATFORM_CONNECTIONS, NAMESPACE, 'team');
    await waitForConnection('held for its user', (c) => ready(c)?.reason === 'InUse');
    expect(ready(await connectionObject())?.message).toContain(`${NAMESPACE}/uses-team`);

    await stack.client.delete(AGENT_DEPLOYMENTS, NAMESPACE, 'uses-team');
    await stack.waitUntil(
      async () => {
        try {
          await connectionObject();
          return false;
        } catch (error) {
          if (isNotFound(error)) return true;
          throw error;
        }
      },
      'the connection is gone once unused',
      30_000,
    );

    const secretsSeen = JSON.stringify(await stack.client.list(SECRETS, { namespace: NAMESPACE }));
    expect(secretsSeen).toContain('team-key');
    const visible = [stack.logLines.join('\n'), JSON.stringify(await stack.events())].join('\n');
    for (const key of [TEAM_KEY, WRONG_KEY]) expect(visible).not.toContain(key.slice(0, 12));
  }, 60_000);

  it('a burst of objects naming a connection moves its usedBy in a few writes, not one per object', async () => {
    await stack.putSecret('team-key', { apiKey: TEAM_KEY });
    await createTeamConnection();
    await stack.startOperator();
    await waitForConnection('Ready', (c) => ready(c)?.status === 'True');

    // Every count the connection's status is written with, from here on.
    const counts: number[] = [];
    const watching = new AbortController();
    const events = await stack.client.watch<KubeObject & PlatformConnectionObject>(PLATFORM_CONNECTIONS, {
      namespace: NAMESPACE,
      resourceVersion: (await connectionObject()).metadata.resourceVersion,
      signal: watching.signal,
    });
    const reading = (async () => {
      for await (const event of events) {
        if (event.type === 'MODIFIED') counts.push(event.object.status?.usedBy ?? 0);
      }
    })();
    const listener = await listenerIdFor(TEAM_KEY);
    const burst = 40;
    const createsStarted = Date.now();
    await Promise.all(
      Array.from({ length: burst }, (_, i) =>
        stack.client.create(
          AGENT_DEPLOYMENTS,
          containerAgent(`burst-${i}`, listener, {
            connectionRef: { kind: 'PlatformConnection', name: 'team' },
          }),
        ),
      ),
    );
    const createSeconds = (Date.now() - createsStarted) / 1_000;
    await waitForConnection(`used by all ${burst}`, (c) => c.status?.usedBy === burst);
    watching.abort();
    await reading;
    const countWrites = counts.filter((count, i) => count !== (counts[i - 1] ?? 0)).length;
    expect(counts.at(-1)).toBe(burst);
    // One write a second while they arrive, and the last: on a busy machine the creates can
    // take seconds, and each second may bring its write (one per arrival made 21 here).
    expect(countWrites).toBeLessThanOrEqual(Math.ceil(createSeconds) + 2);
  });

  it('a connection deleted and created again serves its objects again (a fresh client, not the closed one)', async () => {
    await stack.putSecret('team-key', { apiKey: TEAM_KEY });
    await createTeamConnection();
    await stack.startOperator();
    await waitForConnection('Ready', (c) => ready(c)?.status === 'True');
    const listener = await listenerIdFor(TEAM_KEY);
    const onTeam = { connectionRef: { kind: 'PlatformConnection', name: 'team' } };
    await stack.client.create(AGENT_DEPLOYMENTS, containerAgent('before', listener, onTeam));
    await stack.waitFor('before', (o) => condition(o, 'Ready')?.status === 'True', 'Ready');

    await stack.client.delete(AGENT_DEPLOYMENTS, NAMESPACE, 'before');
    await stack.client.delete(PLATFORM_CONNECTIONS, NAMESPACE, 'team');
    await stack.waitUntil(
      async () =>
        (await stack.client.list(PLATFORM_CONNECTIONS, { namespace: NAMESPACE })).items.length === 0,
      'the connection is gone',
      30_000,
    );
    await createTeamConnection();
    await waitForConnection('Ready again', (c) => ready(c)?.status === 'True');
    await stack.client.create(AGENT_DEPLOYMENTS, containerAgent('after', listener, onTeam));
    await stack.waitFor(
      'after',
      (o) => condition(o, 'Ready')?.status === 'True',
      'Ready through the new connection',
    );
  }, 60_000);

  it("a ClusterPlatformConnection reads its key in the operator's namespace only; its metrics carry its name, never the key", async () => {
    const spec = {
      controlPlaneUrl: stack.controlPlane.url,
      platformApiUrl: platformUrl,
      apiKeySecretRef: { name: 'shared-key', key: 'apiKey' },
    };
    // The same Secret name in a tenant namespace must not be read for a cluster-scoped connection.
    await stack.putSecret('shared-key', { apiKey: TEAM_KEY });
    await stack.client.create(CLUSTER_PLATFORM_CONNECTIONS, {
      apiVersion: 'agentplatform.io/v1alpha1',
      kind: 'ClusterPlatformConnection',
      metadata: { name: 'shared' },
      spec,
    });
    // Watching only the tenant namespace: the operator namespace's Secrets get their own cache.
    const operator = await stack.startOperator({
      leaderElectionNamespace: 'agent-system',
      namespaces: [NAMESPACE],
    });
    const shared = () =>
      stack.client.get<KubeObject & PlatformConnectionObject>(
        CLUSTER_PLATFORM_CONNECTIONS,
        undefined,
        'shared',
      );
    const readyOf = async () => (await shared()).status?.conditions?.find((c) => c.type === 'Ready');
    await stack.waitUntil(async () => (await readyOf())?.reason === 'SecretNotFound', 'SecretNotFound');
    expect((await readyOf())?.message).toBe(
      'spec.apiKeySecretRef: Secret "agent-system/shared-key" not found',
    );

    await stack.client.create(NAMESPACES, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'agent-system' },
    });
    await stack.client.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'shared-key', namespace: 'agent-system' },
      data: { apiKey: Buffer.from(TEAM_KEY).toString('base64') },
    });
    await stack.waitUntil(async () => (await readyOf())?.status === 'True', 'Ready once the key is in place');
    const metrics = await operator.registry.metrics();
    expect(metrics).toContain(
      'agent_operator_connection_ready{kind="ClusterPlatformConnection",namespace="",name="shared"} 1',
    );
    expect(metrics).not.toContain(TEAM_KEY.slice(0, 12));
  }, 60_000);

  it('an object naming a connection that does not exist is Stalled with ConnectionNotFound and makes no call', async () => {
    await stack.startOperator();
    await stack.client.create(AGENT_DEPLOYMENTS, {
      apiVersion: 'agentplatform.io/v1alpha1',
      kind: 'AgentDeployment',
      metadata: { name: 'orphan-ref', namespace: NAMESPACE },
      spec: {
        source: 'internal_container',
        connectionRef: { kind: 'ClusterPlatformConnection', name: 'nowhere' },
      },
    });
    const object = await stack.waitFor(
      'orphan-ref',
      (o) => condition(o, 'Stalled')?.status === 'True',
      'Stalled',
    );
    expect(condition(object, 'Stalled')).toMatchObject({
      reason: 'ConnectionNotFound',
      message: 'spec.connectionRef: ClusterPlatformConnection nowhere not found',
    });
    const stats = await stack.admin<{ byRoute: Array<{ method: string; route: string }> }>('GET', '/stats');
    expect(stats.byRoute.filter((c) => c.method !== 'GET')).toEqual([]);
  }, 60_000);
});
