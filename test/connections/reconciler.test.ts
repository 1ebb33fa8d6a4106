// The connection reconciler over real HTTP: the control-plane emulator checks the key, a small
// loopback server stands for the platform API's /ok, and a closed port for an unreachable
// private domain. Kubernetes is an in-memory port, so every status, event and log line can be
// searched for the key.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONNECTION_FINALIZER, type PlatformConnectionObject } from '../../src/api/connection/index.js';
import { ControlPlaneClient } from '../../src/controlplane/client/index.js';
import { ControlPlaneClientPool } from '../../src/connections/client-pool.js';
import { ConnectionRegistry } from '../../src/connections/registry.js';
import { createLogger } from '../../src/observability/logger.js';
import { bindConnectionMetrics } from '../../src/reconcilers/connection/metrics.js';
import { ConnectionReconciler } from '../../src/reconcilers/connection/reconciler.js';
import { requeueAfter, type ReconcileResult } from '../../src/runtime/reconcile/result.js';
import { startControlPlaneEmulator, type ControlPlaneEmulator } from '../../src/sim/controlplane/index.js';
import { FakeConnectionKube } from './support/fake-kube.js';
import { connection, MapLookup, secret } from './support/objects.js';

const GOOD_KEY = 'reconciler-good-key-7f3a9c';
const WRONG_KEY = 'reconciler-wrong-key-b81d44';
const KEY = 'PlatformConnection/team-a/main';

let emulator: ControlPlaneEmulator;
let platform: Server;
let platformUrl: string;
let closedPort: number;
let pool: ControlPlaneClientPool;
let lookup: MapLookup;
let kube: FakeConnectionKube;
let registry: ConnectionRegistry;
let reconciler: ConnectionReconciler;
let defaultClient: ControlPlaneClient;
let now: number;
let users: string[];
const logLines: string[] = [];
let metrics: Registry;

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function spec(extra: Partial<PlatformConnectionObject['spec']> = {}): PlatformConnectionObject['spec'] {
  return {
    controlPlaneUrl: emulator.url,
    platformApiUrl: platformUrl,
    apiKeySecretRef: { name: 'platform-key', key: 'apiKey' },
    ...extra,
  };
}

function put(object: PlatformConnectionObject): void {
  delete object.status;
  lookup.add(object);
  kube.put(KEY, object);
}

async function reconcile(): Promise<ReconcileResult> {
  const result = await reconciler.reconcile(KEY, new AbortController().signal);
  const stored = kube.get(KEY);
  if (stored !== undefined) lookup.add(stored);
  return result;
}

function condition(type: 'Ready' | 'Reachable') {
  return kube.get(KEY)?.status?.conditions?.find((c) => c.type === type);
}

beforeEach(async () => {
  emulator = await startControlPlaneEmulator({ apiKeys: [{ key: GOOD_KEY }] });
  platform = createServer((request, response) => {
    response.statusCode = request.url === '/ok' ? 200 : 404;
    response.end('{"ok":true}');
  });
  platformUrl = `http://127.0.0.1:${await listen(platform)}`;
  const closed = createServer();
  closedPort = await listen(closed);
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  pool = new ControlPlaneClientPool();
  lookup = new MapLookup();
  kube = new FakeConnectionKube();
  defaultClient = new ControlPlaneClient({ baseUrl: emulator.url, credentials: { apiKey: GOOD_KEY } });
  registry = new ConnectionRegistry({
    lookup,
    pool,
    operatorNamespace: 'ops',
    defaultConnection: {
      client: defaultClient,
      budgetId: 'default',
      controlPlaneId: 'default',
      credentials: { apiKey: GOOD_KEY },
      agentTrust: { platformUrls: [emulator.url], agentHosts: [], tenantChosenEndpoints: false },
    },
    defaultDataDeletionNamespaces: [],
  });
  now = Date.parse('2026-01-01T00:00:00Z');
  users = [];
  logLines.length = 0;
  metrics = new Registry();
  const sink = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  reconciler = new ConnectionReconciler({
    kube,
    registry,
    usersOf: () => users,
    clock: { now: () => now },
    random: () => 0.5,
    metrics: bindConnectionMetrics(metrics),
    logger: createLogger({ level: 'debug', destination: sink }),
  });
});

afterEach(async () => {
  await pool.close();
  await defaultClient.close();
  await emulator.close();
  await new Promise<void>((resolve) => platform.close(() => resolve()));
});

/** The delay a result asks for; fails the test if it asks for anything else. */
function delayOf(result: ReconcileResult): number {
  if (result.kind !== 'requeueAfter') throw new Error(`expected a requeue after a delay, got ${result.kind}`);
  return result.ms;
}

async function settle(): Promise<ReconcileResult> {
  // The first pass adds the finalizer (its watch event brings the second), the second probes.
  await reconcile();
  return reconcile();
}

describe('connection reconciler', () => {
  it('a good key: finalizer, Ready and Reachable, observedGeneration, last probe time, budget use, then a slow jittered re-probe', async () => {
    put(connection('PlatformConnection', 'team-a', 'main', spec()));
    lookup.secrets.set('team-a/platform-key', secret(GOOD_KEY));
    const result = await settle();
    const stored = kube.get(KEY);
    expect(stored?.metadata.finalizers).toEqual([CONNECTION_FINALIZER]);
    expect(condition('Ready')).toMatchObject({
      status: 'True',
      reason: 'Authenticated',
      observedGeneration: 1,
    });
    expect(condition('Reachable')).toMatchObject({ status: 'True', reason: 'Reachable' });
    expect(stored?.status).toMatchObject({
      observedGeneration: 1,
      lastProbeTime: '2026-01-01T00:00:00.000Z',
      endpoint: emulator.url,
      usedBy: 0,
      rateBudget: { limit: '1000/10s', sharedWith: 0 },
    });
    // 5 min ± 20%, with random() = 0.5: exactly 5 min.
    expect(result).toEqual(requeueAfter(300_000));
    const writes = kube.statusWrites;
    expect(await reconcile()).toEqual(requeueAfter(300_000));
    expect(kube.statusWrites).toBe(writes);
  });

  it('a wrong key: Ready=False with a message naming the Secret, backoff that grows, recovery when the Secret is fixed', async () => {
    put(connection('PlatformConnection', 'team-a', 'main', spec()));
    lookup.secrets.set('team-a/platform-key', secret(WRONG_KEY));
    const first = await settle();
    expect(condition('Ready')).toMatchObject({ status: 'False', reason: 'Unauthorized' });
    expect(condition('Ready')?.message).toContain(
      'refuses the credential (HTTP 401); check spec.apiKeySecretRef (Secret "platform-key", key "apiKey")',
    );
    expect(kube.events.map((e) => `${e.type} ${e.reason}`)).toContain('Warning Unauthorized');

    // Not before the backoff: no call. Then each failure waits longer.
    expect(await reconcile()).toEqual(requeueAfter(delayOf(first)));
    now += delayOf(first);
    const second = await reconcile();
    expect(delayOf(second)).toBeGreaterThan(delayOf(first));

    lookup.secrets.set('team-a/platform-key', secret(GOOD_KEY, '2'));
    await reconcile();
    expect(condition('Ready')).toMatchObject({ status: 'True', reason: 'Authenticated' });
    expect(kube.events.map((e) => `${e.type} ${e.reason}`)).toContain('Normal Authenticated');
  });

  it('a missing key Secret: Ready=False SecretNotFound, and no probe', async () => {
    put(connection('PlatformConnection', 'team-a', 'main', spec()));
    await settle();
    expect(condition('Ready')).toMatchObject({
      status: 'False',
      reason: 'SecretNotFound',
      message: 'spec.apiKeySecretRef: Secret "team-a/platform-key" not found',
    });
    expect(kube.get(KEY)?.status?.lastProbeTime).toBeUndefined();
  });

  it('an unreachable private domain: Reachable=False PrivateDomainUnreachable, Ready unaffected', async () => {
    put(
      connection('PlatformConnection', 'team-a', 'main', spec({ privateDomain: `127.0.0.1:${closedPort}` })),
    );
    lookup.secrets.set('team-a/platform-key', secret(GOOD_KEY));
    await settle();
    expect(condition('Ready')?.status).toBe('True');
    expect(condition('Reachable')).toMatchObject({ status: 'False', reason: 'PrivateDomainUnreachable' });
    expect(condition('Reachable')?.message).toContain(
      `GET http://127.0.0.1:${closedPort}/ok failed: ECONNREFUSED`,
    );
  });

  it('an unreachable platform API: Reachable=False', async () => {
    put(
      connection(
        'PlatformConnection',
        'team-a',
        'main',
        spec({ platformApiUrl: `http://127.0.0.1:${closedPort}` }),
      ),
    );
    lookup.secrets.set('team-a/platform-key', secret(GOOD_KEY));
    await settle();
    expect(condition('Reachable')).toMatchObject({ status: 'False', reason: 'Unreachable' });
  });

  it('deleting a connection in use waits and names the users (condition and event); released when they are gone', async () => {
    put(connection('PlatformConnection', 'team-a', 'main', spec()));
    lookup.secrets.set('team-a/platform-key', secret(GOOD_KEY));
    await settle();
    const stored = kube.get(KEY);
    if (stored === undefined) throw new Error('missing');
    stored.metadata.deletionTimestamp = '2026-01-01T00:01:00Z';
    kube.objects.set(KEY, stored);
    users = ['team-a/billing-agent', 'team-a/support-bot'];
    expect(await reconcile()).toEqual(requeueAfter(30_000));
    expect(kube.get(KEY)?.metadata.finalizers).toEqual([CONNECTION_FINALIZER]);
    expect(condition('Ready')).toMatchObject({
      status: 'False',
      reason: 'InUse',
      message:
        'Deletion waits: 2 AgentDeployment(s) still use this connection: team-a/billing-agent, team-a/support-bot',
    });
    expect(kube.events).toContainEqual({
      type: 'Warning',
      reason: 'InUse',
      message: condition('Ready')?.message,
    });

    users = [];
    await reconcile();
    expect(kube.get(KEY)).toBeUndefined();
  });

  it('no key or fragment of it in status, events, logs or metrics', async () => {
    put(connection('PlatformConnection', 'team-a', 'main', spec()));
    lookup.secrets.set('team-a/platform-key', secret(WRONG_KEY));
    await settle();
    lookup.secrets.set('team-a/platform-key', secret(GOOD_KEY, '2'));
    await reconcile();
    const texts = [
      JSON.stringify(kube.get(KEY)),
      JSON.stringify(kube.events),
      logLines.join('\n'),
      await metrics.metrics(),
    ].join('\n');
    expect(texts).toContain(
      'agent_operator_connection_ready{kind="PlatformConnection",namespace="team-a",name="main"} 1',
    );
    for (const key of [GOOD_KEY, WRONG_KEY]) {
      for (let i = 0; i + 6 <= key.length; i += 1) expect(texts).not.toContain(key.slice(i, i + 6));
      expect(texts).not.toContain(Buffer.from(key).toString('base64').slice(0, 12));
    }
  });

  it('a connection gone without the finalizer lets its client go (it no longer shares the budget)', async () => {
    put(connection('PlatformConnection', 'team-a', 'main', spec()));
    lookup.secrets.set('team-a/platform-key', secret(GOOD_KEY));
    const twin = connection('PlatformConnection', 'team-b', 'twin', spec());
    lookup.add(twin);
    lookup.secrets.set('team-b/platform-key', secret(GOOD_KEY));
    await settle();
    registry.clientFor(twin);
    expect(registry.sharing(twin)).toEqual(['PlatformConnection team-a/main']);
    kube.objects.delete(KEY);
    await reconcile();
    expect(registry.sharing(twin)).toEqual([]);
  });

  it('a wrong path prefix is Ready=False with a message pointing at the URL, not at the key', async () => {
    put(
      connection(
        'PlatformConnection',
        'team-a',
        'main',
        spec({ controlPlaneUrl: `${emulator.url}/wrong-prefix` }),
      ),
    );
    lookup.secrets.set('team-a/platform-key', secret(GOOD_KEY));
    await settle();
    expect(condition('Ready')).toMatchObject({ status: 'False', reason: 'Refused' });
    expect(condition('Ready')?.message).toContain(
      'refused the probe (HTTP 404); check the URL and its path prefix',
    );
  });
});
