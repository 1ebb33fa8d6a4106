// A kubeconfig that points kubectl and @kubernetes/client-node at the emulator
// (context "emulator", namespace "default", no credentials: the emulator does not authenticate).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import yaml from 'js-yaml';

export function kubeconfigYaml(url: string): string {
  return yaml.dump({
    apiVersion: 'v1',
    kind: 'Config',
    // client-node refuses plain-HTTP clusters unless TLS verification is marked skipped.
    clusters: [{ name: 'emulator', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'emulator', user: {} }],
    contexts: [{ name: 'emulator', context: { cluster: 'emulator', user: 'emulator', namespace: 'default' } }],
    'current-context': 'emulator',
    preferences: {},
  });
}

export async function writeKubeconfig(path: string, url: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, kubeconfigYaml(url), { mode: 0o600 });
}
