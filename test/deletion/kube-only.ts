// The Kubernetes emulator alone with the deletion CRDs applied: for what admission decides
// (schema and CEL rules), with no operator and no platform.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeClientFrom, loadClusterAccess } from '../../src/runtime/kube/cluster-access.js';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import { startKubeEmulator } from '../../src/sim/kube/index.js';
import { applyDeletionCrds } from './stack.js';

export async function startKubeWithDeletionCrds(): Promise<{ client: KubeClient; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'deletion-kube-'));
  const kube = await startKubeEmulator({ kubeconfigPath: join(dir, 'kubeconfig') });
  const { client } = kubeClientFrom(
    await loadClusterAccess({ kind: 'file', path: kube.kubeconfigPath ?? '' }),
  );
  await applyDeletionCrds(client);
  return {
    client,
    close: async () => {
      await kube.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
