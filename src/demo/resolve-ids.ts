// The examples name the embedded emulator's default listener and integration. Against a
// real control plane those ids mean nothing, so the demo swaps in the first listener and
// repository-host integration of the user's own workspace, and says so.
import { createControlPlaneClient } from '../controlplane/client/index.js';
import type { Manifest } from './manifests.js';
import type { DemoEnvironment } from './environment.js';

export async function resolveExampleIds(objects: Manifest[], environment: DemoEnvironment): Promise<void> {
  const client = createControlPlaneClient({
    baseUrl: environment.controlPlaneUrl,
    credentials: { apiKey: environment.apiKey },
  });
  try {
    const listeners = await client.listListeners({ limit: 100 });
    const integrations = await client.listIntegrations();
    const listenerId = listeners.ok ? listeners.value.resources[0]?.id : undefined;
    const integrationId = integrations.ok ? integrations.value[0]?.id : undefined;
    for (const object of objects) {
      const sourceConfig = (object.spec as { sourceConfig?: Record<string, unknown> } | undefined)
        ?.sourceConfig;
      if (!sourceConfig) continue;
      if ('listenerId' in sourceConfig) {
        if (!listenerId)
          throw new Error('the control plane has no listener for the external_container example');
        sourceConfig.listenerId = listenerId;
      }
      if ('integrationId' in sourceConfig) {
        if (!integrationId)
          throw new Error('the control plane has no repository-host integration for the repo_host example');
        sourceConfig.integrationId = integrationId;
      }
    }
  } finally {
    await client.close();
  }
}
