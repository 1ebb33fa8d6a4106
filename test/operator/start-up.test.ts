// Bad days at start-up: an API server that fails every request while the operator starts,
// and CRDs installed after it started. The operator must answer both without a restart:
// discovery is not taken from an error, a kind that is not served yet holds no other kind
// back, and a kind that appears later is served.
import { afterEach, describe, expect, it } from 'vitest';
import type { PlatformConnectionObject } from '../../src/api/connection/index.js';
import { PLATFORM_CONNECTIONS } from '../../src/reconcilers/connection/setup.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import { applyConnectionCrds, startOkServer, type OkServer } from '../connections/support/platform.js';
import { applyDeletionCrds } from '../deletion/stack.js';
import { API_KEY, NAMESPACE, Stack, containerAgent, isReady } from './harness.js';

let stack: Stack | undefined;
let platform: OkServer | undefined;

afterEach(async () => {
  await stack?.close();
  await platform?.close();
  stack = undefined;
  platform = undefined;
});

describe('start-up on a bad day', () => {
  it('converges after the API server answered 503 to everything for its first 4 s', async () => {
    stack = await Stack.start({ withoutOperator: true });
    const listenerId = await stack.listenerId();
    await stack.apply(containerAgent('early', listenerId));
    stack.kube.faults.failRequests({ rate: 1, statuses: [503] });
    const started = Date.now();
    await stack.startOperator();
    // The fault window is the scenario (4 s of the operator's life), not a wait for a result.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 4_000 - Date.now())));
    stack.kube.faults.clear();
    await stack.waitFor('early', isReady, 'Ready after the API server recovered', 60_000);
    await stack.apply(containerAgent('later', listenerId));
    await stack.waitFor('later', isReady, 'Ready', 30_000);
  }, 90_000);

  it('serves connection and deletion kinds whose CRDs are installed after it started', async () => {
    stack = await Stack.start({ withoutOperator: true });
    platform = await startOkServer();
    const listenerId = await stack.listenerId();
    await stack.startOperator();
    await stack.apply(containerAgent('first', listenerId));
    await stack.waitFor('first', isReady, 'Ready with only the AgentDeployment CRD');

    await applyConnectionCrds(stack.client);
    await applyDeletionCrds(stack.client);
    await stack.putSecret('late-key', { apiKey: API_KEY });
    await stack.client.create(PLATFORM_CONNECTIONS, {
      apiVersion: 'agentplatform.io/v1alpha1',
      kind: 'PlatformConnection',
      metadata: { name: 'late', namespace: NAMESPACE },
      spec: {
        controlPlaneUrl: stack.controlPlane.url,
        platformApiUrl: platform.url,
        apiKeySecretRef: { name: 'late-key', key: 'apiKey' },
      },
    });
    const ready = async () => {
      const connection = await stack?.client.get<KubeObject & PlatformConnectionObject>(
        PLATFORM_CONNECTIONS,
        NAMESPACE,
        'late',
      );
      return connection?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
    };
    await stack.waitUntil(async () => (await ready()) === 'True', 'the late connection Ready', 60_000);
    // An AgentDeployment naming it is served through it, not "not found".
    const object = containerAgent('through-late', listenerId);
    (object.spec as Record<string, unknown>).connectionRef = { kind: 'PlatformConnection', name: 'late' };
    await stack.apply(object);
    const served = await stack.waitFor('through-late', isReady, 'Ready through the late connection', 30_000);
    expect(served.status?.conditions?.find((c) => c.type === 'Ready')?.reason).toBe('Deployed');
  }, 120_000);
});
