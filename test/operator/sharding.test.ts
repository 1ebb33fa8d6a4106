// Sharding end to end, with the operator as real processes (`src/cli.ts run --shard ...`, so
// that a leader can be SIGKILLed: no drain, no lease release) against the kube and control-plane
// emulators: the default shard and shard `a` (a leader and a standby). Each shard serves only
// its own objects; an object relabelled between shards is handed over (the new shard rolls out
// its next change); an object relabelled while it is being created is created once; when shard
// a's leader dies its standby takes over that shard alone. The control plane counts exactly one
// create per object. A connection (not sharded) used by objects of both shards counts them all,
// and its deletion waits for the users of the shard that is not the last to look at it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperatorProcess } from '../chaos/operator-process.js';
import { SHARD_LABEL } from '../../src/operator/shard.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import type { ResourceType } from '../../src/runtime/kube/resource.js';
import { AGENT_DEPLOYMENTS } from '../../src/operator/operator.js';
import type { PlatformConnectionObject } from '../../src/api/connection/index.js';
import { PLATFORM_CONNECTIONS } from '../../src/reconcilers/connection/setup.js';
import { isNotFound } from '../../src/runtime/kube/errors.js';
import {
  applyConnectionCrds,
  createPlatformConnection,
  startOkServer,
  type OkServer,
} from '../connections/support/platform.js';
import {
  API_KEY,
  containerAgent,
  EVENTS,
  isReady,
  NAMESPACE,
  Stack,
  type AgentDeploymentObject,
} from './harness.js';

const LEASES: ResourceType = { group: 'coordination.k8s.io', version: 'v1', plural: 'leases' };
const LEASE_NAMESPACE = 'default';
/** Start-up of three processes, two waits for a lease to expire (15 s), and the rollouts. */
const TEST_TIMEOUT_MS = 180_000;

let stack: Stack;
let dir: string;
let platform: OkServer;
const processes: OperatorProcess[] = [];
/** The shard each process serves. */
const shardOf = new Map<OperatorProcess, string>();

function shardProcess(shard: string): OperatorProcess {
  const operator = new OperatorProcess({
    kubeconfigPath: stack.kube.kubeconfigPath ?? '',
    controlPlaneUrl: stack.controlPlane.url,
    apiKey: API_KEY,
    rateLimit: { count: 1000, windowSeconds: 10 },
    logPath: join(dir, `operator-${shard}-${processes.length}.log`),
    extraArgs: [
      '--shard',
      shard,
      '--leader-elect',
      '--leader-election-namespace',
      LEASE_NAMESPACE,
      // The test connection's platform API is a loopback server.
      '--allow-private-networks',
    ],
  });
  processes.push(operator);
  shardOf.set(operator, shard);
  operator.start();
  return operator;
}

async function leaseHolder(shard: string): Promise<string | undefined> {
  try {
    const lease = await stack.client.get<KubeObject & { spec?: { holderIdentity?: string } }>(
      LEASES,
      LEASE_NAMESPACE,
      `agent-operator-${shard}`,
    );
    const holder = lease.spec?.holderIdentity;
    return holder === '' ? undefined : holder;
  } catch {
    return undefined;
  }
}

/** Which replica reported `reason` on the object (events.k8s.io reportingInstance). */
async function reporters(name: string, reason: string): Promise<string[]> {
  const list = await stack.client.list<
    KubeObject & { reason?: string; reportingInstance?: string; regarding?: { name?: string } }
  >(EVENTS, { namespace: NAMESPACE });
  return [
    ...new Set(
      list.items
        .filter((event) => event.regarding?.name === name && event.reason === reason)
        .map((event) => event.reportingInstance ?? ''),
    ),
  ];
}

function labelled(object: AgentDeploymentObject, shard: string | undefined): AgentDeploymentObject {
  return shard === undefined
    ? object
    : { ...object, metadata: { ...object.metadata, labels: { [SHARD_LABEL]: shard } } };
}

/** Relabels the object (null: takes the label off) and changes its image in one patch. */
async function moveAndChange(name: string, shard: string | null, image: string): Promise<number> {
  const patched = await stack.client.mergePatch<AgentDeploymentObject>(AGENT_DEPLOYMENTS, NAMESPACE, name, {
    metadata: { labels: { [SHARD_LABEL]: shard } },
    spec: { sourceRevisionConfig: { imageUri: image } },
  });
  return patched.metadata.generation ?? 0;
}

const readyAt = (generation: number) => (object: AgentDeploymentObject) =>
  isReady(object) && (object.metadata.generation ?? 0) >= generation;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-operator-sharding-'));
  stack = await Stack.start({ withoutOperator: true });
  await applyConnectionCrds(stack.client);
  platform = await startOkServer();
});

afterAll(async () => {
  await Promise.all(processes.map((operator) => operator.stop()));
  await stack?.close();
  await platform?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('sharded operators', () => {
  it(
    'serve their own shard, hand a relabelled object over without a second create, and fail over one shard alone',
    async () => {
      const s = stack;
      const listenerId = await s.listenerId();
      const defaultShard = shardProcess('default');
      const first = shardProcess('a');
      await s.waitUntil(
        async () => (await leaseHolder('a')) === first.identity,
        'shard a has a leader',
        60_000,
      );
      const second = shardProcess('a');
      await s.waitUntil(
        async () => (await leaseHolder('default')) === defaultShard.identity,
        'the default shard has a leader',
        60_000,
      );

      for (const [name, shard] of [
        ['plain-0', undefined],
        ['plain-1', undefined],
        ['sharded-0', 'a'],
        ['sharded-1', 'a'],
      ] as const) {
        await s.apply(labelled(containerAgent(name, listenerId), shard));
      }
      // Relabelled while its first pass may be creating it: whichever shard creates, once.
      await s.apply(containerAgent('racing', listenerId));
      await moveAndChange('racing', 'a', 'registry.example/agent:1');
      for (const name of ['plain-0', 'plain-1', 'sharded-0', 'sharded-1', 'racing']) {
        await s.waitFor(name, isReady, 'Ready', 60_000);
      }
      expect(await reporters('plain-0', 'Created')).toEqual([defaultShard.identity]);
      expect(await reporters('sharded-0', 'Created')).toEqual([first.identity]);
      // The standby is warm and contending, and has written nothing.
      expect(await reporters('sharded-1', 'Created')).toEqual([first.identity]);

      // Hand-over both ways: the next change of each is rolled out by its new shard.
      const intoA = await moveAndChange('plain-1', 'a', 'registry.example/agent:2');
      const outOfA = await moveAndChange('sharded-1', null, 'registry.example/agent:2');
      await s.waitFor('plain-1', readyAt(intoA), 'Ready after moving into shard a', 60_000);
      await s.waitFor('sharded-1', readyAt(outOfA), 'Ready after moving to the default shard', 60_000);
      expect(await reporters('plain-1', 'Updated')).toEqual([first.identity]);
      expect(await reporters('sharded-1', 'Updated')).toEqual([defaultShard.identity]);

      // Shard a's leader dies: its standby takes shard a over once the lease expires; the
      // default shard is not involved.
      await first.kill();
      await s.apply(labelled(containerAgent('after-failover', listenerId), 'a'));
      const changed = await moveAndChange('sharded-0', 'a', 'registry.example/agent:3');
      await s.waitFor('after-failover', isReady, 'Ready under the new leader of shard a', 60_000);
      await s.waitFor('sharded-0', readyAt(changed), 'changed under the new leader of shard a', 60_000);
      expect(await leaseHolder('a')).toBe(second.identity);
      expect(await leaseHolder('default')).toBe(defaultShard.identity);
      expect(await reporters('after-failover', 'Created')).toEqual([second.identity]);

      // Exactly one deployment and one successful create per object.
      const names = (await s.deployments()).map((deployment) => deployment.name).sort();
      expect(names).toEqual(['after-failover', 'plain-0', 'plain-1', 'racing', 'sharded-0', 'sharded-1']);
      const stats = await s.admin<{
        byRoute: Array<{ method: string; route: string; status: number; count: number }>;
      }>('GET', '/stats');
      const creates = stats.byRoute
        .filter((entry) => entry.method === 'POST' && entry.route === '/v2/deployments' && entry.status < 300)
        .reduce((sum, entry) => sum + entry.count, 0);
      expect(creates).toBe(6);
      for (const operator of processes) {
        expect(operator.unexpectedExits).toEqual([]);
        expect(operator.crashLines).toEqual([]);
      }
    },
    TEST_TIMEOUT_MS,
  );
  it(
    "count a connection's users in every shard, and hold its deletion for another shard's user",
    async () => {
      const s = stack;
      const listenerId = await s.listenerId();
      // The shards of the test above, or new ones if it stopped before starting them.
      const running = (shard: string) =>
        processes.some((operator) => shardOf.get(operator) === shard && operator.pid !== undefined);
      if (!running('default')) shardProcess('default');
      if (!running('a')) shardProcess('a');
      await s.putSecret('shared-key', { apiKey: API_KEY });
      await createPlatformConnection(s.client, {
        namespace: NAMESPACE,
        name: 'shared',
        controlPlaneUrl: s.controlPlane.url,
        platformApiUrl: platform.url,
        secretName: 'shared-key',
      });
      const viaShared = { connectionRef: { kind: 'PlatformConnection', name: 'shared' } };
      await s.apply(containerAgent('shared-default-0', listenerId, viaShared));
      await s.apply(containerAgent('shared-default-1', listenerId, viaShared));
      await s.apply(labelled(containerAgent('shared-a-0', listenerId, viaShared), 'a'));

      const connection = () =>
        s.client.get<KubeObject & PlatformConnectionObject>(PLATFORM_CONNECTIONS, NAMESPACE, 'shared');
      const counts = (c: PlatformConnectionObject) =>
        Object.fromEntries((c.status?.shardUsers ?? []).map((entry) => [entry.shard, entry.usedBy]));
      await s.waitUntil(
        async () => {
          const c = await connection();
          return c.status?.usedBy === 3 && JSON.stringify(counts(c)) === '{"a":1,"default":2}';
        },
        'usedBy counts the users of both shards',
        60_000,
      );

      // Deleting: the default shard's users go, shard a's stays; the connection must stay.
      await s.client.delete(PLATFORM_CONNECTIONS, NAMESPACE, 'shared');
      await s.client.delete(AGENT_DEPLOYMENTS, NAMESPACE, 'shared-default-0');
      await s.client.delete(AGENT_DEPLOYMENTS, NAMESPACE, 'shared-default-1');
      const ready = (c: PlatformConnectionObject) => c.status?.conditions?.find((x) => x.type === 'Ready');
      await s.waitUntil(
        async () => {
          const c = await connection();
          // Whichever shard wrote it last: both write the same words.
          return (
            counts(c).default === 0 &&
            ready(c)?.message ===
              'Deletion waits: 1 AgentDeployment(s) still use this connection, by shard: a: 1'
          );
        },
        "the default shard's count is 0 and it holds the deletion for shard a",
        60_000,
      );
      const held = await connection();
      expect(held.metadata.finalizers).toEqual(['agentplatform.io/connection-in-use']);
      expect(held.status?.usedBy).toBe(1);

      await s.client.delete(AGENT_DEPLOYMENTS, NAMESPACE, 'shared-a-0');
      await s.waitUntil(
        async () => {
          try {
            await connection();
            return false;
          } catch (error) {
            if (isNotFound(error)) return true;
            throw error;
          }
        },
        "the connection is released once shard a's user is gone",
        60_000,
      );
      for (const operator of processes) {
        expect(operator.unexpectedExits).toEqual([]);
        expect(operator.crashLines).toEqual([]);
      }
    },
    TEST_TIMEOUT_MS,
  );
});
