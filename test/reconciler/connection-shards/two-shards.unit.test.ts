// Two shards' connection reconcilers on one connection, each seeing only its own shard's
// AgentDeployments: usedBy is the cluster's total, a shard's write never loses the other's
// entry, and a deleting connection is released only when no live shard still uses it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { CONNECTION_FINALIZER, type PlatformConnectionObject } from '../../../src/api/connection/index.js';
import { ControlPlaneClientPool } from '../../../src/connections/client-pool.js';
import { ConnectionRegistry } from '../../../src/connections/registry.js';
import { ControlPlaneClient } from '../../../src/controlplane/client/index.js';
import { ConnectionReconciler } from '../../../src/reconcilers/connection/reconciler.js';
import type { ShardLease } from '../../../src/reconcilers/connection/shard-users.js';
import type { ReconcileResult } from '../../../src/runtime/reconcile/result.js';
import { connection, MapLookup, secret } from '../../connections/support/objects.js';
import { SharedConnectionServer, ShardView } from './shared-kube.js';

const KEY = 'PlatformConnection/team-a/main';
const NOW = Date.parse('2026-11-26T12:00:00Z');

interface Shard {
  view: ShardView;
  reconciler: ConnectionReconciler;
  users: string[];
}

let server: SharedConnectionServer;
let lookup: MapLookup;
let pool: ControlPlaneClientPool;
let defaultClient: ControlPlaneClient;
let registry: ConnectionRegistry;
/** What each shard's Lease says; a shard not listed has a freshly renewed one. */
let leases: Map<string, ShardLease>;

function shard(name: string | undefined): Shard {
  const view = new ShardView(server);
  // The shard's AgentDeployments naming the connection: the test changes them as it goes.
  const counted: { users: string[] } = { users: [] };
  const reconciler = new ConnectionReconciler({
    kube: view,
    registry,
    usersOf: () => counted.users,
    ...(name === undefined ? {} : { shard: name }),
    shardLease: (other) =>
      Promise.resolve(leases.get(other) ?? { kind: 'found', renewedAt: NOW - 1_000, durationSeconds: 15 }),
    probe: () => Promise.resolve({ auth: { kind: 'ok' }, platform: { ok: true } }),
    clock: { now: () => NOW },
    random: () => 0.5,
    logger: pino({ level: 'silent' }),
  });
  return Object.assign(counted, { view, reconciler });
}

function pass(of: Shard): Promise<ReconcileResult> {
  return of.reconciler.reconcile(KEY, new AbortController().signal);
}

/** Passes until the shard has nothing to write (the finalizer, then the probe and its status). */
async function settle(of: Shard): Promise<void> {
  for (let i = 0; i < 3; i += 1) await pass(of);
}

const status = () => server.read()?.status;
const ready = () => status()?.conditions?.find((c) => c.type === 'Ready');

beforeEach(() => {
  server = new SharedConnectionServer();
  lookup = new MapLookup();
  lookup.secrets.set('team-a/platform-key', secret('shard-test-key-1c9e'));
  pool = new ControlPlaneClientPool();
  defaultClient = new ControlPlaneClient({
    baseUrl: 'http://127.0.0.1:9',
    credentials: { apiKey: 'default' },
  });
  registry = new ConnectionRegistry({
    lookup,
    pool,
    operatorNamespace: 'ops',
    defaultConnection: {
      client: defaultClient,
      budgetId: 'default',
      controlPlaneId: 'default',
      credentials: { apiKey: 'default' },
      agentTrust: { platformUrls: [], agentHosts: [], tenantChosenEndpoints: false },
    },
    defaultDataDeletionNamespaces: [],
  });
  leases = new Map();
  const object: PlatformConnectionObject = connection('PlatformConnection', 'team-a', 'main', {
    controlPlaneUrl: 'http://127.0.0.1:9',
    platformApiUrl: 'http://127.0.0.1:9',
    apiKeySecretRef: { name: 'platform-key', key: 'apiKey' },
  });
  delete object.status;
  server.put(object);
  lookup.add(object);
});

afterEach(async () => {
  await pool.close();
  await defaultClient.close();
});

describe('a connection used in two shards', () => {
  it('usedBy is the sum of both shards, each in its own entry', async () => {
    const a = shard('a');
    const b = shard('b');
    a.users = ['team-a/one', 'team-a/two'];
    b.users = ['team-b/three'];
    await settle(a);
    await settle(b);
    await pass(a);
    expect(status()?.usedBy).toBe(3);
    expect(status()?.shardUsers?.map(({ shard: name, usedBy }) => ({ shard: name, usedBy }))).toEqual([
      { shard: 'a', usedBy: 2 },
      { shard: 'b', usedBy: 1 },
    ]);

    // One shard's count changes: only its entry and the sum move.
    b.users = [];
    await pass(b);
    expect(status()?.usedBy).toBe(2);
    expect(status()?.shardUsers?.find((entry) => entry.shard === 'a')?.usedBy).toBe(2);
  });

  it('a shard that read before the other wrote gets a Conflict, not the other entry lost', async () => {
    const a = shard('a');
    const b = shard('b');
    await settle(a);
    await settle(b);
    a.users = ['team-a/one'];
    b.users = ['team-b/two'];
    a.view.freeze();
    await pass(b);
    expect(await pass(a)).toEqual({ kind: 'requeueNow' });
    expect(server.statusConflicts).toBe(1);
    await pass(a);
    expect(status()?.usedBy).toBe(2);
    expect(status()?.shardUsers?.map((entry) => entry.shard)).toEqual(['a', 'b']);
  });

  it('deleting: held while the other shard still has a user, released once it has none', async () => {
    const a = shard('a');
    const b = shard('b');
    b.users = ['team-b/last'];
    await settle(a);
    await settle(b);
    server.delete();

    await pass(a);
    expect(server.read()?.metadata.finalizers).toEqual([CONNECTION_FINALIZER]);
    expect(ready()?.reason).toBe('InUse');
    expect(ready()?.message).toBe(
      'Deletion waits: 1 AgentDeployment(s) still use this connection, by shard: b: 1',
    );

    b.users = [];
    await pass(b);
    expect(server.read()).toBeUndefined();
  });

  it('deleting: every shard that holds it writes the same message, so none rewrites the others', async () => {
    const a = shard('a');
    const b = shard('b');
    a.users = ['team-a/one'];
    b.users = ['team-b/two', 'team-b/three'];
    await settle(a);
    await settle(b);
    server.delete();
    await pass(a);
    await pass(b);
    await pass(a);
    const held = 'Deletion waits: 3 AgentDeployment(s) still use this connection, by shard: a: 1, b: 2';
    expect(ready()?.message).toBe(held);
    // Each shard's next look (its 30 s recheck) finds nothing to write.
    const settled = server.read()?.metadata.resourceVersion;
    await pass(b);
    await pass(a);
    expect(server.read()?.metadata.resourceVersion).toBe(settled);
    expect(ready()?.message).toBe(held);

    // One shard's users go: it writes its count, and the message the other would write too.
    b.users = [];
    await pass(b);
    const afterB = 'Deletion waits: 1 AgentDeployment(s) still use this connection, by shard: a: 1';
    expect(ready()?.message).toBe(afterB);
    const rewritten = server.read()?.metadata.resourceVersion;
    await pass(a);
    expect(server.read()?.metadata.resourceVersion).toBe(rewritten);
  });

  it('deleting: an entry of a shard whose Lease ended long ago no longer holds it', async () => {
    const a = shard('a');
    const gone = shard('gone');
    gone.users = ['team-c/orphan'];
    await settle(a);
    await settle(gone);
    server.delete();
    leases.set('gone', { kind: 'found', renewedAt: NOW - 60 * 60_000, durationSeconds: 15 });
    await pass(a);
    expect(server.read()).toBeUndefined();
  });

  it('deleting: an entry whose shard’s Lease cannot be read still holds it', async () => {
    const a = shard('a');
    const other = shard('other');
    other.users = ['team-c/user'];
    await settle(a);
    await settle(other);
    server.delete();
    leases.set('other', { kind: 'unknown' });
    await pass(a);
    expect(server.read()?.metadata.finalizers).toEqual([CONNECTION_FINALIZER]);
  });

  it('a probe drops the entry of a shard that is gone, and usedBy with it', async () => {
    const a = shard('a');
    const gone = shard('gone');
    a.users = ['team-a/one'];
    gone.users = ['team-c/orphan', 'team-c/other'];
    await settle(gone);
    await settle(a);
    expect(status()?.usedBy).toBe(3);
    leases.set('gone', { kind: 'found', renewedAt: NOW - 60 * 60_000, durationSeconds: 15 });
    // A new process of shard a has no memory of a probe: it probes at once.
    const restarted = shard('a');
    restarted.users = a.users;
    await pass(restarted);
    expect(status()?.shardUsers?.map((entry) => entry.shard)).toEqual(['a']);
    expect(status()?.usedBy).toBe(1);
  });

  it('unsharded: usedBy is its own count, no entry is written, and its writes carry no precondition', async () => {
    const only = shard(undefined);
    only.users = ['team-a/one', 'team-b/two'];
    await settle(only);
    expect(status()?.usedBy).toBe(2);
    expect(status()).not.toHaveProperty('shardUsers');

    // The only counter: a stale read still writes (as before sharding), no Conflict.
    only.users = ['team-a/one'];
    only.view.freeze();
    const moved = server.read();
    if (moved !== undefined) server.put(moved);
    await pass(only);
    expect(server.statusConflicts).toBe(0);
    expect(status()?.usedBy).toBe(1);
  });
});
