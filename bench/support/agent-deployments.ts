// The workload: external_container AgentDeployments (the source the build time
// applies to: 4 timed revision states before DEPLOYED), created in parallel.
import { GROUP, PLURAL, VERSION } from '../../src/api/agentdeployment/names.js';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import type { ResourceType } from '../../src/runtime/kube/resource.js';
import { BENCH_NAMESPACE } from './emulators.js';

export const AGENT_DEPLOYMENTS: ResourceType = { group: GROUP, version: VERSION, plural: PLURAL };

export type AgentDeploymentObject = KubeObject & {
  spec: Record<string, unknown>;
  status?: {
    observedGeneration?: number;
    conditions?: Array<{ type: string; status: string; observedGeneration?: number }>;
  };
};

export function benchObjectName(index: number): string {
  return `agent-${String(index).padStart(5, '0')}`;
}

export function agentDeployment(
  name: string,
  listenerId: string,
  metadata: Partial<KubeObject['metadata']> = {},
): AgentDeploymentObject {
  return {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name, namespace: BENCH_NAMESPACE, ...metadata },
    spec: {
      source: 'external_container',
      sourceConfig: { listenerId, resourceSpec: { cpu: 0.5, memoryMb: 512 } },
      sourceRevisionConfig: { imageUri: `registry.example/agents/${name}:1` },
    },
  };
}

/** Runs `work` over `items` with at most `parallel` in flight. */
export async function inParallel<T>(
  items: readonly T[],
  parallel: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker));
}

export async function createAll(
  kube: KubeClient,
  objects: readonly AgentDeploymentObject[],
  parallel = 32,
): Promise<void> {
  await inParallel(objects, parallel, async (object) => {
    await kube.create(AGENT_DEPLOYMENTS, object);
  });
}

/** Ready=True computed from the object's current generation (what kstatus and the tests call Ready). */
export function isReady(object: AgentDeploymentObject): boolean {
  const ready = object.status?.conditions?.find((condition) => condition.type === 'Ready');
  return ready?.status === 'True' && object.status?.observedGeneration === object.metadata.generation;
}
