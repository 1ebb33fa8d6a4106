// The baseline operator process: an informer on AgentDeployments feeding the naive
// reconciler (naive-reconciler.ts). Run as
//   AGENT_OPERATOR_API_KEY=... node --import tsx bench/converge/baseline/entry.ts <kubeconfig> <control-plane-url>
// Prints "baseline started" once its cache has synced; stops on SIGTERM.
import { toWireCreateRequest, type AgentDeploymentSpec } from '../../../src/api/agentdeployment/index.js';
import { createControlPlaneClient } from '../../../src/controlplane/client/index.js';
import { kubeClientFrom, loadKubeConfig } from '../../../src/runtime/kube/kubeconfig.js';
import { Informer } from '../../../src/runtime/manager/informer.js';
import { AGENT_DEPLOYMENTS, type AgentDeploymentObject } from '../../support/agent-deployments.js';
import { BENCH_NAMESPACE } from '../../support/emulators.js';
import { NaiveReconciler } from './naive-reconciler.js';

async function run(kubeconfigPath: string, controlPlaneUrl: string, apiKey: string): Promise<void> {
  const { client: kube, transport } = kubeClientFrom(loadKubeConfig({ kind: 'file', path: kubeconfigPath }));
  const controlPlane = createControlPlaneClient({ baseUrl: controlPlaneUrl, credentials: { apiKey } });
  const reconciler = new NaiveReconciler({
    controlPlane,
    markReady: async (key, generation, message) => {
      const name = key.slice(key.indexOf('/') + 1);
      await kube.mergePatchStatus(AGENT_DEPLOYMENTS, BENCH_NAMESPACE, name, {
        status: {
          observedGeneration: generation,
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              reason: 'Deployed',
              message,
              lastTransitionTime: new Date().toISOString(),
              observedGeneration: generation,
            },
          ],
        },
      });
    },
    onError: (key, message) => process.stderr.write(`baseline: ${key}: ${message}\n`),
  });
  const informer = Informer.forResource<AgentDeploymentObject>(kube, {
    type: AGENT_DEPLOYMENTS,
    namespaces: [BENCH_NAMESPACE],
  });
  informer.addHandler({
    onAdd: (object) =>
      reconciler.add({
        key: `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`,
        generation: object.metadata.generation ?? 1,
        request: toWireCreateRequest(
          object as AgentDeploymentObject & { metadata: { name: string }; spec: AgentDeploymentSpec },
          [],
        ),
      }),
  });
  const abort = new AbortController();
  const running = informer.run(abort.signal);
  await informer.waitForSync(abort.signal);
  process.stdout.write('baseline started\n');
  await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
  reconciler.stop();
  abort.abort();
  await running.catch(() => undefined);
  await controlPlane.close();
  transport.close();
}

const [kubeconfigPath, controlPlaneUrl] = process.argv.slice(2);
const apiKey = process.env.AGENT_OPERATOR_API_KEY;
if (!kubeconfigPath || !controlPlaneUrl || !apiKey) {
  process.stderr.write('usage: AGENT_OPERATOR_API_KEY=<key> entry.ts <kubeconfig> <control-plane-url>\n');
  process.exit(2);
}
run(kubeconfigPath, controlPlaneUrl, apiKey).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`baseline: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
