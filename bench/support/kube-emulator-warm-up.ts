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
import { statusOfWrite } from '../kube-emulator/status-writes.js';
import { AGENT_DEPLOYMENTS, agentDeployment, createAll, inParallel } from './agent-deployments.js';
import { NAMESPACES } from './emulators.js';
import { openWatches } from './open-watches.js';

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
  const watch = await openWatches(kube, 1, WARM_UP_NAMESPACE);
  const recorder = new EventRecorder({ client: kube, component: 'bench-warm-up', instance: 'bench' });
  try {
    for (let round = 0; round < rounds; round += 1) {
      const names = Array.from({ length: objects }, (_, i) => `warm-up-${round}-${i}`);
      await createAll(
        kube,
        names.map((name) => agentDeployment(name, LISTENER_ID, { namespace: WARM_UP_NAMESPACE })),
      );
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
    await watch.close();
  }
}
