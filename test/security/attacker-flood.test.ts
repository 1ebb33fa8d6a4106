// The attacker suite, the shared workers: a tenant with edit rights in one namespace creates a
// flood of AgentDeployments on the shared default connection. The operator's workers and the
// key's budget are shared by every team, but the flood must not put a victim team's one new
// object behind all of it: the work queue serves namespaces in turn within a connection, so
// the victim's object is looked at, and created, after a handful of the attacker's creates,
// not after every one of them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Stack, containerAgent, type AgentDeploymentObject } from '../operator/harness.js';

const ATTACKER_NAMESPACE = 'team-b';
const NAMESPACES = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };
/** Slow enough that the flood waits for tokens for seconds: 20 creates a second. */
const RATE_LIMIT = { count: 20, windowSeconds: 1 };
const FLOOD = 80;

let stack: Stack;

beforeEach(async () => {
  stack = await Stack.start({ controlPlane: { rateLimit: RATE_LIMIT }, operator: { rateLimit: RATE_LIMIT } });
  await stack.client.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ATTACKER_NAMESPACE },
  });
});
afterEach(async () => {
  await stack.close();
});

function inNamespace(object: AgentDeploymentObject, namespace: string): AgentDeploymentObject {
  return { ...object, metadata: { ...object.metadata, namespace } };
}

describe('a flood of objects in one namespace', () => {
  it("does not put another namespace's new object behind it", async () => {
    const listenerId = await stack.listenerId();
    await Promise.all(
      Array.from({ length: FLOOD }, (_, i) =>
        stack.apply(inNamespace(containerAgent(`flood-${i}`, listenerId), ATTACKER_NAMESPACE)),
      ),
    );
    // The flood is under way: its first creates are made, most of it waits for tokens.
    await stack.waitUntil(
      async () => (await stack.deployments()).length >= 5,
      "the attacker's first creates",
    );
    const before = (await stack.deployments()).length;
    await stack.apply(containerAgent('victim', listenerId));
    await stack.waitUntil(
      async () => (await stack.deployments()).some((deployment) => deployment.name === 'victim'),
      "the victim's create",
    );
    const names = (await stack.deployments()).map((deployment) => deployment.name);
    const attackerCreatesFirst = names.indexOf('victim') - before;
    // The workers waiting for tokens when the victim arrived (4) and a few more (measured: 5);
    // in one FIFO every object of the flood not yet created went first (measured: 64).
    expect(attackerCreatesFirst).toBeLessThanOrEqual(10);
    expect(names.length, 'the flood is not over when the victim is created').toBeLessThan(FLOOD);
  });
});
