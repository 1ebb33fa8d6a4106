// The convergence benchmarks' warm-up runs before the operator starts: whatever it leaves in the
// cluster, the operator would reconcile. It must leave no AgentDeployment, not even one held by
// its finalizer, and its writes must have gone through (the Events are what remain).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { AGENT_DEPLOYMENTS } from '../../bench/support/agent-deployments.js';
import { applyCrd } from '../../bench/support/emulators.js';
import { WARM_UP_NAMESPACE, warmUpKubeEmulator } from '../../bench/support/kube-emulator-warm-up.js';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import { kubeClientFrom, loadClusterAccess } from '../../src/runtime/kube/cluster-access.js';
import type { ResourceType } from '../../src/runtime/kube/resource.js';
import { startKubeEmulator, type KubeEmulator } from '../../src/sim/kube/index.js';

const EVENTS: ResourceType = { group: 'events.k8s.io', version: 'v1', plural: 'events' };

let dir: string;
let emulator: KubeEmulator;
let kube: KubeClient;
let closeTransport: () => void;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warm-up-'));
  const kubeconfig = join(dir, 'kubeconfig');
  emulator = await startKubeEmulator({ kubeconfigPath: kubeconfig });
  const { client, transport } = kubeClientFrom(await loadClusterAccess({ kind: 'file', path: kubeconfig }));
  kube = client;
  closeTransport = () => transport.close();
  await applyCrd(kube, 'agentplatform.io_agentdeployments.yaml');
});

afterEach(async () => {
  closeTransport();
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

it('leaves no AgentDeployment behind, and each object went through its writes', async () => {
  await warmUpKubeEmulator(kube, { rounds: 2, objects: 12 });

  const left = await kube.list(AGENT_DEPLOYMENTS, {});
  expect(left.items).toEqual([]);
  const events = await kube.list(EVENTS, { namespace: WARM_UP_NAMESPACE });
  expect(events.items).toHaveLength(24);
});
