// Bad days at start-up: an API server that fails every request while the operator starts,
// and CRDs installed after it started. The operator must answer both without a restart:
// discovery is not taken from an error, a kind that is not served yet holds no other kind
// back, and a kind that appears later is served.
import { afterEach, describe, expect, it } from 'vitest';
import {
  applyConnectionCrds,
  connectionReadyStatus,
  createPlatformConnection,
  startOkServer,
  type OkServer,
} from '../connections/support/platform.js';
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
    await createPlatformConnection(stack.client, {
      namespace: NAMESPACE,
      name: 'late',
      controlPlaneUrl: stack.controlPlane.url,
      platformApiUrl: platform.url,
      secretName: 'late-key',
    });
    const client = stack.client;
    const ready = () => connectionReadyStatus(client, NAMESPACE, 'late');
    await stack.waitUntil(async () => (await ready()) === 'True', 'the late connection Ready', 60_000);
    // An AgentDeployment naming it is served through it, not "not found".
    const object = containerAgent('through-late', listenerId);
    (object.spec as Record<string, unknown>).connectionRef = { kind: 'PlatformConnection', name: 'late' };
    await stack.apply(object);
    const served = await stack.waitFor('through-late', isReady, 'Ready through the late connection', 30_000);
    expect(served.status?.conditions?.find((c) => c.type === 'Ready')?.reason).toBe('Deployed');
  }, 120_000);

  it('a restarted operator does not call a Ready connection not Ready before it has read its key', async () => {
    // A new process (a restart, a new leader) has read no connection's key Secret yet. Its first
    // passes over settled objects used to resolve the connection before the connection
    // controller's own pass had read the key, find it "not found", and flip every object they
    // reached to Ready=False ConnectionNotReady, a Warning each, until the next look.
    stack = await Stack.start({ withoutOperator: true });
    platform = await startOkServer();
    await applyConnectionCrds(stack.client);
    const listenerId = await stack.listenerId();
    const first = await stack.startOperator();
    await stack.putSecret('team-key', { apiKey: API_KEY });
    await createPlatformConnection(stack.client, {
      namespace: NAMESPACE,
      name: 'team',
      controlPlaneUrl: stack.controlPlane.url,
      platformApiUrl: platform.url,
      secretName: 'team-key',
    });
    const client = stack.client;
    const connectionReady = async () => (await connectionReadyStatus(client, NAMESPACE, 'team')) === 'True';
    await stack.waitUntil(connectionReady, 'the connection Ready', 30_000);
    const names = Array.from({ length: 8 }, (_, i) => `settled-${i}`);
    for (const name of names) {
      const object = containerAgent(name, listenerId);
      (object.spec as Record<string, unknown>).connectionRef = { kind: 'PlatformConnection', name: 'team' };
      await stack.apply(object);
    }
    for (const name of names) await stack.waitFor(name, isReady, 'Ready through the connection', 30_000);
    await first.stop();

    const second = await stack.startOperator();
    await stack.waitForReconciles(names.length, 'the new process looks at every object', {
      since: 0,
      operator: second,
    });
    const refused = (await stack.events()).filter((event) => event.reason === 'ConnectionNotReady');
    expect(refused.map((event) => `${event.regarding?.name ?? ''}: ${event.note ?? ''}`)).toEqual([]);
    for (const name of names) expect(isReady(await stack.get(name))).toBe(true);
  }, 120_000);
});
