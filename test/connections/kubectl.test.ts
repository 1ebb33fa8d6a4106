// What `kubectl get` shows for connections, through the real kubectl against the Kubernetes
// emulator: the printer columns READY, REACHABLE, REGION/URL and AGE, and the API server's
// refusal of a connection with two credentials, naming the rule.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_PLATFORM_CONNECTIONS, PLATFORM_CONNECTIONS } from '../../src/reconcilers/connection/setup.js';
import { KUBECTL, requireTool } from '../packaging/support/paths.js';
import { NAMESPACE, Stack } from '../operator/harness.js';
import { applyConnectionCrds } from './support/platform.js';

let stack: Stack;

async function kubectl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(requireTool(KUBECTL), [
      '--kubeconfig',
      stack.kube.kubeconfigPath ?? '',
      ...args,
    ]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

beforeAll(async () => {
  stack = await Stack.start({ withoutOperator: true });
  await applyConnectionCrds(stack.client);
});

afterAll(async () => {
  await stack.close();
});

describe('kubectl and connections', () => {
  it('get shows READY, REACHABLE, REGION/URL and AGE', async () => {
    await stack.client.create(PLATFORM_CONNECTIONS, {
      apiVersion: 'agentplatform.io/v1alpha1',
      kind: 'PlatformConnection',
      metadata: { name: 'eu', namespace: NAMESPACE },
      spec: { region: 'eu', apiKeySecretRef: { name: 'k', key: 'apiKey' } },
    });
    const condition = (type: string, status: string) => ({
      type,
      status,
      reason: type,
      message: '',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    await stack.client.mergePatchStatus(PLATFORM_CONNECTIONS, NAMESPACE, 'eu', {
      status: { endpoint: 'eu', conditions: [condition('Ready', 'True'), condition('Reachable', 'False')] },
    });
    const { code, stdout } = await kubectl('get', 'pconn', '-n', NAMESPACE);
    expect(code).toBe(0);
    const [header, row] = stdout.trim().split('\n');
    expect(header?.split(/\s+/)).toEqual(['NAME', 'READY', 'REACHABLE', 'REGION/URL', 'AGE']);
    expect(row?.split(/\s+/).slice(0, 4)).toEqual(['eu', 'True', 'False', 'eu']);
  });

  it('apply refuses a ClusterPlatformConnection with two credentials, naming the rule', async () => {
    const manifest = JSON.stringify({
      apiVersion: 'agentplatform.io/v1alpha1',
      kind: 'ClusterPlatformConnection',
      metadata: { name: 'twice' },
      spec: {
        region: 'us',
        apiKeySecretRef: { name: 'a', key: 'k' },
        bearerTokenSecretRef: { name: 'b', key: 'k' },
      },
    });
    const child = execFile(requireTool(KUBECTL), [
      '--kubeconfig',
      stack.kube.kubeconfigPath ?? '',
      'apply',
      '-f',
      '-',
    ]);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin?.end(manifest);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).not.toBe(0);
    expect(stderr).toContain('set exactly one credential');
    await expect(stack.client.get(CLUSTER_PLATFORM_CONNECTIONS, undefined, 'twice')).rejects.toThrow();
  });
});
