import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadClusterAccess } from '../../src/runtime/kube/cluster-access.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cluster-access-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function kubeconfig(user: Record<string, unknown>, cluster: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'main',
    contexts: [
      { name: 'main', context: { cluster: 'c', user: 'u' } },
      { name: 'other', context: { cluster: 'c', user: 'other' } },
    ],
    clusters: [{ name: 'c', cluster: { server: 'https://10.0.0.1:6443', ...cluster } }],
    users: [
      { name: 'u', user },
      { name: 'other', user: { token: 'other-token' } },
    ],
  });
}

async function apply(path: string, context?: string): Promise<https.RequestOptions> {
  const access = await loadClusterAccess({ kind: 'file', path, context });
  const options: https.RequestOptions = { headers: {} };
  await access.applyToHTTPSOptions(options);
  return options;
}

describe('loadClusterAccess', () => {
  it('reads a token user, CA data and the server, verifying TLS by default', async () => {
    const path = join(dir, 'config');
    await writeFile(
      path,
      kubeconfig(
        { token: 't0k3n' },
        { 'certificate-authority-data': Buffer.from('CA PEM').toString('base64') },
      ),
    );
    const access = await loadClusterAccess({ kind: 'file', path });
    expect(access.getCurrentCluster()).toEqual({ server: 'https://10.0.0.1:6443' });
    const options = await apply(path);
    expect((options.headers as Record<string, string>).Authorization).toBe('Bearer t0k3n');
    expect(options.ca?.toString()).toBe('CA PEM');
    expect(options.rejectUnauthorized).toBe(true);
  });

  it('resolves files relative to the kubeconfig, and honours insecure-skip-tls-verify', async () => {
    await writeFile(join(dir, 'token'), 'from-file\n');
    await writeFile(join(dir, 'client.crt'), 'CERT');
    await writeFile(join(dir, 'client.key'), 'KEY');
    const path = join(dir, 'config');
    await writeFile(
      path,
      kubeconfig(
        { tokenFile: 'token', 'client-certificate': 'client.crt', 'client-key': 'client.key' },
        { 'insecure-skip-tls-verify': true },
      ),
    );
    const options = await apply(path);
    expect((options.headers as Record<string, string>).Authorization).toBe('Bearer from-file');
    expect(options.cert?.toString()).toBe('CERT');
    expect(options.key?.toString()).toBe('KEY');
    expect(options.rejectUnauthorized).toBe(false);
  });

  it('uses basic auth when that is what the user holds', async () => {
    const path = join(dir, 'config');
    await writeFile(path, kubeconfig({ username: 'admin', password: 'pw' }));
    const options = await apply(path);
    expect((options.headers as Record<string, string>).Authorization).toBe(
      `Basic ${Buffer.from('admin:pw').toString('base64')}`,
    );
  });

  it('selects the requested context', async () => {
    const path = join(dir, 'config');
    await writeFile(path, kubeconfig({ token: 'main-token' }));
    const options = await apply(path, 'other');
    expect((options.headers as Record<string, string>).Authorization).toBe('Bearer other-token');
  });

  it('hands exec plugins and auth providers to client-node, which knows them', async () => {
    const path = join(dir, 'config');
    await writeFile(
      path,
      kubeconfig({
        exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'aws', args: ['eks', 'get-token'] },
      }),
    );
    expect(await loadClusterAccess({ kind: 'file', path })).toBeInstanceOf(KubeConfig);
  });

  it('names the missing context', async () => {
    const path = join(dir, 'config');
    await writeFile(path, kubeconfig({ token: 'x' }));
    await expect(loadClusterAccess({ kind: 'file', path, context: 'nope' })).rejects.toThrow(
      /no context named "nope"/,
    );
  });
});
