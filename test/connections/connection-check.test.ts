// `agent-operator connection check` against the Kubernetes emulator (through a kubeconfig
// file, as from a workstation), the control-plane emulator and a loopback /ok server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/connection-check/cli.js';
import { PLATFORM_CONNECTIONS } from '../../src/reconcilers/connection/setup.js';
import { API_KEY, NAMESPACE, Stack } from '../operator/harness.js';
import { applyConnectionCrds, startOkServer, type OkServer } from './support/platform.js';

const WRONG_KEY = 'check-wrong-key-7d1e22aa';
let stack: Stack;
let platform: OkServer;
let platformUrl: string;

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

async function connectionWithKey(
  name: string,
  secretName: string,
  key: string,
  extra: Record<string, unknown> = {},
) {
  await stack.client.create(
    { group: '', version: 'v1', plural: 'secrets' },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: secretName, namespace: NAMESPACE },
      data: { apiKey: Buffer.from(key).toString('base64') },
    },
  );
  await stack.client.create(PLATFORM_CONNECTIONS, {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'PlatformConnection',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      controlPlaneUrl: stack.controlPlane.url,
      platformApiUrl: platformUrl,
      apiKeySecretRef: { name: secretName, key: 'apiKey' },
      ...extra,
    },
  });
}

beforeAll(async () => {
  stack = await Stack.start({ withoutOperator: true });
  await applyConnectionCrds(stack.client);
  platform = await startOkServer();
  platformUrl = platform.url;
  await connectionWithKey('good', 'good-key', API_KEY);
  await connectionWithKey('wrong', 'wrong-key', WRONG_KEY, { privateDomain: '127.0.0.1:1' });
});

afterAll(async () => {
  await stack.close();
  await platform.close();
});

describe('agent-operator connection check', () => {
  const kubeconfig = () => ['--kubeconfig', stack.kube.kubeconfigPath ?? ''];

  it('a good connection passes every check from here; only the missing operator report fails', async () => {
    const { code, out } = await run(['check', 'good', '-n', NAMESPACE, ...kubeconfig()]);
    expect(out).toContain('OK   the key authenticates');
    expect(out).toContain('OK   the platform API answers /ok');
    expect(out).toContain('FAIL the operator has not reported on this connection');
    expect(code).toBe(1);
  });

  it('a wrong key and an unreachable private domain: one line each, exit 1, no key printed', async () => {
    const { code, out } = await run(['check', 'wrong', '-n', NAMESPACE, ...kubeconfig()]);
    expect(code).toBe(1);
    expect(out).toContain('FAIL the control plane refuses the key (HTTP 401)');
    expect(out).toMatch(/FAIL the private domain is unreachable: GET http:\/\/127\.0\.0\.1:1\/ok failed/);
    expect(out).not.toContain(WRONG_KEY.slice(0, 10));
  });

  it('a connection that does not exist, and bad usage', async () => {
    expect(await run(['check', 'absent', '-n', NAMESPACE, ...kubeconfig()])).toMatchObject({
      code: 1,
      out: `FAIL PlatformConnection ${NAMESPACE}/absent: not found\n`,
    });
    expect((await run(['inspect', 'x'])).code).toBe(2);
    expect((await run(['check', 'x', '--cluster', '-n', 'a'])).err).toContain(
      '--cluster and --namespace exclude each other',
    );
  });
});
