// The operator's real requests against the Kubernetes emulator, recorded by a proxy in
// front of it over a whole life cycle (leader election, create, update, Secret reference,
// repeated warning, delete): each must be a (group, resource, verb) that src/operator/rbac.ts
// lists, and each listed verb must be used, so the chart (which equals that list) grants
// exactly what the code does.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { startOperator, type RunningOperator } from '../../src/operator/operator.js';
import { CLUSTER_PLATFORM_CONNECTIONS, PLATFORM_CONNECTIONS } from '../../src/reconcilers/connection/setup.js';
import {
  CONNECTION_CLUSTER_PERMISSIONS,
  LEADER_ELECTION_PERMISSIONS,
  ORPHAN_RECORD_PERMISSIONS,
  WATCH_PERMISSIONS,
} from '../../src/operator/rbac.js';
import type { ClusterAccess } from '../../src/runtime/kube/cluster-access.js';
import { applyConnectionCrds, startOkServer, type OkServer } from '../connections/support/platform.js';
import { EXAMPLE_DELETIONS, TRACE_DELETIONS } from '../../src/reconcilers/deletion/setup.js';
import { applyDeletionCrds } from '../deletion/stack.js';
import { oneTraceBatch } from '../platform-emulator/helpers.js';

const CONFIG_MAPS = { group: '', version: 'v1', plural: 'configmaps' };
import { API_KEY, NAMESPACE, Stack, containerAgent, isReady } from './harness.js';

let stack: Stack;
let proxy: Server;
let operator: RunningOperator | undefined;
let platform: OkServer;
const requests: { method: string; url: string }[] = [];

/** Forwards every request to the emulator, streaming both ways (watches included). */
function startRecordingProxy(target: URL): Promise<Server> {
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '/' });
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** What RBAC sees in a request: `group/resource[/subresource] verb`, or undefined for discovery. */
function permissionOf(method: string, url: string): string | undefined {
  const [path = '', query = ''] = url.split('?');
  const parts = path.split('/').filter(Boolean);
  let rest: string[];
  let group: string;
  if (parts[0] === 'api') [group, rest] = ['', parts.slice(2)];
  else if (parts[0] === 'apis') [group, rest] = [parts[1] ?? '', parts.slice(3)];
  else return undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) rest = rest.slice(2);
  const [resource, name, subresource] = rest;
  if (resource === undefined) return undefined;
  const watching = /(^|&)watch=(true|1)(&|$)/.test(query);
  const verb =
    method === 'GET'
      ? watching
        ? 'watch'
        : name === undefined
          ? 'list'
          : 'get'
      : ({
          POST: 'create',
          PUT: 'update',
          PATCH: 'patch',
          DELETE: name === undefined ? 'deletecollection' : 'delete',
        }[method] ?? method);
  return `${group}/${resource}${subresource === undefined ? '' : `/${subresource}`} ${verb}`;
}

const LISTED = new Set(
  [
    ...WATCH_PERMISSIONS,
    ...LEADER_ELECTION_PERMISSIONS,
    ...CONNECTION_CLUSTER_PERMISSIONS,
    ...ORPHAN_RECORD_PERMISSIONS,
  ].flatMap((rule) => rule.verbs.map((verb) => `${rule.apiGroup}/${rule.resource} ${verb}`)),
);

/**
 * Listed but never requested: the API server checks them when the operator sets an
 * ownerReference with blockOwnerDeletion (spec.export's ConfigMaps), not as a request.
 */
const CHECKED_BY_ADMISSION = new Set(['agentplatform.io/agentdeployments/finalizers update']);

function used(): Set<string> {
  const seen = new Set<string>();
  for (const { method, url } of requests) {
    const permission = permissionOf(method, url);
    if (permission !== undefined) seen.add(permission);
  }
  return seen;
}

beforeAll(async () => {
  stack = await Stack.start({ withoutOperator: true });
  await applyConnectionCrds(stack.client);
  await applyDeletionCrds(stack.client);
  platform = await startOkServer();
  proxy = await startRecordingProxy(new URL(stack.kube.url));
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const kubeConfig: ClusterAccess = {
    getCurrentCluster: () => ({ server: proxyUrl }),
    applyToHTTPSOptions: (options) => stack.kubeConfig.applyToHTTPSOptions(options),
  };
  operator = await startOperator({
    config: {
      region: 'us',
      controlPlaneUrl: stack.controlPlane.url,
      apiKey: API_KEY,
      namespaces: [],
      concurrency: 2,
      resyncPeriodMs: 60_000,
      pollIntervalMs: 100,
      leaderElect: true,
      leaderElectionNamespace: NAMESPACE,
      leaderElectionId: 'agent-operator',
      metricsBindAddress: { host: '127.0.0.1', port: 0 },
      logLevel: 'warn',
      // Its PlatformConnection points at the emulators on loopback.
      allowPrivateNetworks: true,
    },
    logger: createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) }),
    kubeConfig,
    serveHttp: false,
    // A quick re-check of a refused create, so that the test sees the same warning twice.
    reconciler: { minRevisionPollMs: 50, deletionPollMs: 50, stalledRecheckMs: 200 },
  });
});
afterAll(async () => {
  await operator?.stop();
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  await stack.close();
  await platform.close();
});

describe('the operator’s Kubernetes requests', () => {
  it('use only listed permissions, and every listed permission is used', async () => {
    const listenerId = await stack.listenerId();
    await stack.putSecret('rbac-secrets', { token: 'rbac-value-1' });
    await stack.apply(
      containerAgent('rbac', listenerId, {
        secrets: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'rbac-secrets', key: 'token' } } }],
      }),
    );
    await stack.waitFor('rbac', isReady, 'Ready');
    await stack.patchSpec('rbac', { sourceRevisionConfig: { imageUri: 'registry.example/agent:2' } });
    await stack.waitFor(
      'rbac',
      (o) => isReady(o) && o.status?.observedGeneration === o.metadata.generation,
      'Ready at generation 2',
    );
    // The same warning twice in a row: the second is a patch of the first Event.
    await stack.admin('POST', '/faults', { method: 'POST', route: '/v2/deployments', status: 400, count: 2 });
    await stack.apply(containerAgent('rbac-rejected', listenerId));
    await stack.waitFor(
      'rbac-rejected',
      (o) => o.status?.conditions?.some((c) => c.type === 'Stalled' && c.status === 'True') === true,
      'Stalled',
    );
    // A refused spec is not sent again until it changes: a new generation, refused the same way.
    await stack.patchSpec('rbac-rejected', {
      sourceRevisionConfig: { imageUri: 'registry.example/agent:3' },
    });
    await stack.waitUntil(async () => used().has('events.k8s.io/events patch'), 'a repeated Event');
    await stack.client.delete(
      { group: 'agentplatform.io', version: 'v1alpha1', plural: 'agentdeployments' },
      NAMESPACE,
      'rbac',
    );
    await stack.waitUntil(async () => (await stack.deployments()).every((d) => d.name !== 'rbac'), 'deleted');
    await stack.waitUntil(async () => used().has('coordination.k8s.io/leases update'), 'a lease renewal');

    // Two objects orphan their deployments: the first record creates the ConfigMap, the second updates it.
    for (const name of ['rbac-orphan-1', 'rbac-orphan-2']) {
      await stack.apply(containerAgent(name, listenerId, { deletionPolicy: 'Orphan' }));
      await stack.waitFor(name, isReady, 'Ready');
      await stack.client.delete(
        { group: 'agentplatform.io', version: 'v1alpha1', plural: 'agentdeployments' },
        NAMESPACE,
        name,
      );
    }
    for (const permission of ['/configmaps create', '/configmaps update']) {
      await stack.waitUntil(async () => used().has(permission), permission);
    }

    // Connections of both kinds: read, given their finalizer, and probed into status.
    await stack.putSecret('connection-key', { apiKey: API_KEY });
    const spec = {
      controlPlaneUrl: stack.controlPlane.url,
      platformApiUrl: platform.url,
      apiKeySecretRef: { name: 'connection-key', key: 'apiKey' },
    };
    await stack.client.create(PLATFORM_CONNECTIONS, {
      apiVersion: 'agentplatform.io/v1alpha1',
      kind: 'PlatformConnection',
      metadata: { name: 'rbac', namespace: NAMESPACE },
      spec,
    });
    await stack.client.create(CLUSTER_PLATFORM_CONNECTIONS, {
      apiVersion: 'agentplatform.io/v1alpha1',
      kind: 'ClusterPlatformConnection',
      metadata: { name: 'rbac' },
      spec,
    });
    for (const permission of [
      'agentplatform.io/platformconnections/status patch',
      'agentplatform.io/clusterplatformconnections/status patch',
      'agentplatform.io/platformconnections patch',
      'agentplatform.io/clusterplatformconnections patch',
    ]) {
      await stack.waitUntil(async () => used().has(permission), permission);
    }

    // Deletions: status writes of both kinds, and the ConfigMap of a traceIdsFrom.
    const traceId = crypto.randomUUID();
    await stack.api('POST', '/runs/batch', oneTraceBatch(traceId, 'rbac-project', {}));
    const sessions = await stack.api<Array<{ id: string }>>('GET', '/sessions?name=rbac-project');
    await stack.client.create(CONFIG_MAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'rbac-ids', namespace: NAMESPACE },
      data: { ids: traceId },
    });
    await stack.client.create(TRACE_DELETIONS, {
      apiVersion: 'agentplatform.io/v1alpha1',
      kind: 'TraceDeletion',
      metadata: { name: 'rbac', namespace: NAMESPACE },
      spec: {
        sessionId: sessions.body[0]?.id,
        traceIdsFrom: { configMapKeyRef: { name: 'rbac-ids', key: 'ids' } },
      },
    });
    await stack.client.create(EXAMPLE_DELETIONS, {
      apiVersion: 'agentplatform.io/v1alpha1',
      kind: 'ExampleDeletion',
      metadata: { name: 'rbac', namespace: NAMESPACE },
      spec: { search: { metadata: { suite: 'rbac' } } },
    });
    for (const permission of [
      'agentplatform.io/tracedeletions/status patch',
      'agentplatform.io/exampledeletions/status patch',
      '/configmaps get',
    ]) {
      await stack.waitUntil(async () => used().has(permission), permission);
    }

    // spec.export: its ConfigMap written, then deleted when the spec lets it go.
    await stack.apply(containerAgent('rbac-export', listenerId, { export: { configMapName: 'rbac-export' } }));
    await stack.waitFor(
      'rbac-export',
      (o) => o.status?.conditions?.some((c) => c.type === 'Exported' && c.status === 'True') === true,
      'exported',
    );
    await stack.patchSpec('rbac-export', { export: null });
    await stack.waitUntil(async () => used().has('/configmaps delete'), '/configmaps delete');

    const seen = used();
    expect([...seen].filter((permission) => !LISTED.has(permission)).sort()).toEqual([]);
    expect(
      [...LISTED].filter((permission) => !seen.has(permission) && !CHECKED_BY_ADMISSION.has(permission)).sort(),
    ).toEqual([]);
  });
});
