// Runs the Kubernetes emulator's request paths before a benchmark's clock starts. The emulator
// stands in for an API server that has been up for days; a fresh Node process runs the same
// paths two to three times slower until V8 has optimised them (`bench:kube-emulator --creates`:
// about 545 us of its CPU per create in its first 2,000, 185 us later), and a convergence
// benchmark's burst of creates fell exactly into that window, so its first seconds measured V8
// compiling the emulator as much as the operator. The warm-up makes what the operator meets in
// a burst: creates, finalizer and status merge patches, Events and deletes, each sent to an
// open watch, in a namespace of its own where only the Events stay (the operator reads none).
import { EventRecorder, referenceTo } from '../../src/runtime/events/recorder.js';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import type { ResourceType } from '../../src/runtime/kube/resource.js';
import { statusOfWrite } from '../kube-emulator/status-writes.js';
import { AGENT_DEPLOYMENTS, agentDeployment, inParallel } from './agent-deployments.js';

const NAMESPACES: ResourceType = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };
export const WARM_UP_NAMESPACE = 'bench-warm-up';
/** Objects a round; two rounds bring the create path close to its warm cost (docs/benchmarks.md). */
const OBJECTS = 2_000;
const ROUNDS = 2;
const FINALIZER = 'bench.agentplatform.io/warm-up';
/** Any well-formed listener id: the Kubernetes emulator does not look it up. */
const LISTENER_ID = '00000000-0000-4000-8000-000000000001';

export interface WarmUpOptions {
  /** Default 2. */
  rounds?: number;
  /** Objects a round; default 2,000. */
  objects?: number;
}

export async function warmUpKubeEmulator(kube: KubeClient, options: WarmUpOptions = {}): Promise<void> {
  const rounds = options.rounds ?? ROUNDS;
  const objects = options.objects ?? OBJECTS;
  await kube.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: WARM_UP_NAMESPACE },
  });
  const abort = new AbortController();
  const { resourceVersion } = await kube.list(AGENT_DEPLOYMENTS, { namespace: WARM_UP_NAMESPACE, limit: 1 });
  const events = await kube.watch(AGENT_DEPLOYMENTS, {
    namespace: WARM_UP_NAMESPACE,
    resourceVersion,
    signal: abort.signal,
  });
  const reading = (async () => {
    try {
      for await (const event of events) void event;
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    }
  })();
  const recorder = new EventRecorder({ client: kube, component: 'bench-warm-up', instance: 'bench' });
  try {
    for (let round = 0; round < rounds; round += 1) {
      const names = Array.from({ length: objects }, (_, i) => `warm-up-${round}-${i}`);
      await inParallel(names, 32, async (name) => {
        const object = agentDeployment(name, LISTENER_ID);
        await kube.create(AGENT_DEPLOYMENTS, {
          ...object,
          metadata: { ...object.metadata, namespace: WARM_UP_NAMESPACE },
        });
      });
      await inParallel(names, 16, async (name) => {
        const held = await kube.mergePatch(AGENT_DEPLOYMENTS, WARM_UP_NAMESPACE, name, {
          metadata: { finalizers: [FINALIZER] },
        });
        await recorder.record(referenceTo(held), 'Normal', 'WarmUp', `Warming the emulator with ${name}`);
        for (let write = 0; write < 2; write += 1) {
          await kube.mergePatchStatus(
            AGENT_DEPLOYMENTS,
            WARM_UP_NAMESPACE,
            name,
            statusOfWrite(name, write * objects, objects),
          );
        }
        await kube.mergePatch(AGENT_DEPLOYMENTS, WARM_UP_NAMESPACE, name, { metadata: { finalizers: null } });
        await kube.delete(AGENT_DEPLOYMENTS, WARM_UP_NAMESPACE, name);
      });
    }
  } finally {
    abort.abort();
    await reading;
  }
}
