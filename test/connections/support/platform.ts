// What several connection tests need around the emulators: a loopback server standing for
// the platform API's /ok, the connection CRDs applied to the Kubernetes emulator, and a
// PlatformConnection whose key is a Secret's `apiKey`, with a look at its Ready.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import yaml from 'js-yaml';
import type { KubeClient } from '../../../src/runtime/kube/client.js';
import type { KubeObject } from '../../../src/runtime/kube/objects.js';
import type { PlatformConnectionObject } from '../../../src/api/connection/index.js';
import { PLATFORM_CONNECTIONS } from '../../../src/reconcilers/connection/setup.js';

const CRDS = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  namespaced: false,
};

export interface OkServer {
  url: string;
  close(): Promise<void>;
}

/** Answers 200 on /ok, 404 elsewhere. */
export async function startOkServer(): Promise<OkServer> {
  const server: Server = createServer((request, response) => {
    response.statusCode = request.url === '/ok' ? 200 : 404;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function applyConnectionCrds(client: KubeClient): Promise<void> {
  for (const plural of ['platformconnections', 'clusterplatformconnections']) {
    const url = new URL(`../../../crds/agentplatform.io_${plural}.yaml`, import.meta.url);
    await client.create(CRDS, yaml.load(await readFile(url, 'utf8')) as KubeObject);
  }
}

export interface PlatformConnectionSpecOptions {
  namespace: string;
  name: string;
  controlPlaneUrl: string;
  platformApiUrl: string;
  /** The Secret (in `namespace`) whose `apiKey` is the connection's key. */
  secretName: string;
}

export async function createPlatformConnection(
  client: KubeClient,
  options: PlatformConnectionSpecOptions,
): Promise<void> {
  await client.create(PLATFORM_CONNECTIONS, {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'PlatformConnection',
    metadata: { name: options.name, namespace: options.namespace },
    spec: {
      controlPlaneUrl: options.controlPlaneUrl,
      platformApiUrl: options.platformApiUrl,
      apiKeySecretRef: { name: options.secretName, key: 'apiKey' },
    },
  });
}

/** The status of the connection's Ready condition, or undefined before it has one. */
export async function connectionReadyStatus(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<string | undefined> {
  const connection = await client.get<KubeObject & PlatformConnectionObject>(
    PLATFORM_CONNECTIONS,
    namespace,
    name,
  );
  return connection.status?.conditions?.find((c) => c.type === 'Ready')?.status;
}
