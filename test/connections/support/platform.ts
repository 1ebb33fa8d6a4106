// What several connection tests need around the emulators: a loopback server standing for
// the platform API's /ok, and the connection CRDs applied to the Kubernetes emulator.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import yaml from 'js-yaml';
import type { KubeClient } from '../../../src/runtime/kube/client.js';
import type { KubeObject } from '../../../src/runtime/kube/objects.js';

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
