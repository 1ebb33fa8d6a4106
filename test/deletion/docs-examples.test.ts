// The manifests of docs/data-deletion.md must be ones the API server accepts: users copy them.
// They are applied to the Kubernetes emulator with the generated CRDs (schema and CEL rules).
import { readFile } from 'node:fs/promises';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import type { ResourceType } from '../../src/runtime/kube/resource.js';
import { CLUSTER_PLATFORM_CONNECTIONS } from '../../src/reconcilers/connection/setup.js';
import { applyConnectionCrds } from '../connections/support/platform.js';
import { startKubeWithDeletionCrds } from './kube-only.js';

const TYPES: Record<string, ResourceType> = {
  TraceDeletion: { group: 'agentplatform.io', version: 'v1alpha1', plural: 'tracedeletions' },
  ExampleDeletion: { group: 'agentplatform.io', version: 'v1alpha1', plural: 'exampledeletions' },
  ConfigMap: { group: '', version: 'v1', plural: 'configmaps' },
  ClusterPlatformConnection: CLUSTER_PLATFORM_CONNECTIONS,
  Namespace: { group: '', version: 'v1', plural: 'namespaces', namespaced: false },
};

describe('docs/data-deletion.md', () => {
  let kube: Awaited<ReturnType<typeof startKubeWithDeletionCrds>>;
  let client: KubeClient;

  beforeAll(async () => {
    kube = await startKubeWithDeletionCrds();
    client = kube.client;
    // The page shows who may delete through a ClusterPlatformConnection.
    await applyConnectionCrds(client);
  });
  afterAll(() => kube.close());

  it('has manifests the API server accepts', async () => {
    const page = await readFile(new URL('../../docs/data-deletion.md', import.meta.url), 'utf8');
    const objects = [...page.matchAll(/```yaml\n([\s\S]*?)```/g)].flatMap((match) =>
      yaml.loadAll(match[1] ?? '').map((doc) => doc as KubeObject),
    );
    expect(objects.map((object) => object.kind)).toEqual(
      expect.arrayContaining(['TraceDeletion', 'ExampleDeletion', 'ConfigMap', 'ClusterPlatformConnection']),
    );
    const namespaces = new Set(objects.flatMap((object) => object.metadata.namespace ?? []));
    for (const name of namespaces) {
      await client.create(TYPES.Namespace as ResourceType, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      });
    }
    for (const object of objects) {
      const type = TYPES[object.kind ?? ''];
      expect(type, `a known kind: ${object.kind ?? ''}`).toBeDefined();
      await client.create(type as ResourceType, object);
    }
  });
});
