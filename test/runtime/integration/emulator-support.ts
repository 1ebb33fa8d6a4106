// Starts the Kubernetes API server emulator in process and builds runtime clients for it.
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from '../../../src/runtime/kube/client.js';
import { KubeConfigTransport } from '../../../src/runtime/kube/transport.js';
import { startKubeEmulator, type KubeEmulator } from '../../../src/sim/kube/index.js';

export const CONFIGMAPS = { group: '', version: 'v1', plural: 'configmaps' };

export async function startEmulator(): Promise<KubeEmulator> {
  return startKubeEmulator({ host: '127.0.0.1', port: 0 });
}

export function clientFor(emulator: KubeEmulator): { client: KubeClient; close: () => void } {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'emulator', server: emulator.url, skipTLSVerify: false }],
    users: [{ name: 'tester', token: 'test-token' }],
    contexts: [{ name: 'emulator', cluster: 'emulator', user: 'tester', namespace: 'default' }],
    currentContext: 'emulator',
  });
  const transport = new KubeConfigTransport(config);
  return { client: new KubeClient(transport), close: () => transport.close() };
}

/** Polls `condition` every 50 ms until it holds or `timeoutMs` passes; returns whether it held. */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
