// An attacker who may edit AgentDeployments (and, worst case, their status) in their own
// namespace tries to get the platform team's key out through `agent-operator invoke`, run by
// someone who can read that key (an administrator checking an agent). The object names the
// platform team's ClusterPlatformConnection and an agent address the attacker controls.
// invoke must send that key only where the connection's owner allows, whatever the caller's
// flags say; and never for a namespace the connection does not serve. The capture host
// records every request: it must see none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAgent,
  createConnection,
  createNamespace,
  invoke,
  startInvokeWorld,
  type InvokeWorld,
} from '../invoke/fixture.js';

const OPERATOR_NAMESPACE = 'agent-operator-system';
const ATTACKER = 'team-mallory';
const PLATFORM_KEY = 'sk-platform-team-key-9f8e7d6c';
const ADMIN_KEY = 'sk-admin-own-key-1a2b3c';

let world: InvokeWorld;

function adminInvokes(name: string, flags: string[] = []) {
  return invoke(['--kubeconfig', world.kubeconfig, '-n', ATTACKER, ...flags, name, 'hi'], {
    AGENT_OPERATOR_API_KEY: ADMIN_KEY,
  });
}

beforeAll(async () => {
  world = await startInvokeWorld();
  await createNamespace(world.kube, OPERATOR_NAMESPACE);
  await createNamespace(world.kube, ATTACKER, { team: 'mallory' });
  // The platform team's key, on its own control plane; it serves the attacker's namespace.
  await createConnection(world, {
    kind: 'ClusterPlatformConnection',
    namespace: OPERATOR_NAMESPACE,
    name: 'platform',
    // Its own control plane, which does not answer here: nothing confirms the attacker's URL.
    url: 'http://127.0.0.1:1',
    key: PLATFORM_KEY,
    namespaceSelector: { matchLabels: { team: 'mallory' } },
  });
  // Serves another team only.
  await createConnection(world, {
    kind: 'ClusterPlatformConnection',
    namespace: OPERATOR_NAMESPACE,
    name: 'team-a-only',
    url: world.controlPlaneUrl,
    key: PLATFORM_KEY,
    namespaceSelector: { matchLabels: { team: 'a' } },
  });
  // No namespaceSelector: serves nobody (fail closed).
  await createConnection(world, {
    kind: 'ClusterPlatformConnection',
    namespace: OPERATOR_NAMESPACE,
    name: 'unscoped',
    url: world.controlPlaneUrl,
    key: PLATFORM_KEY,
  });
  for (const connection of ['platform', 'team-a-only', 'unscoped']) {
    await createAgent(world, ATTACKER, `via-${connection}`, {
      url: `${world.captureUrl}/steal`,
      // A forged id: the control plane is asked about it with the connection's key, never the capture host.
      deploymentId: world.deploymentId,
      connectionRef: { kind: 'ClusterPlatformConnection', name: connection },
    });
  }
});

afterAll(async () => {
  await world.close();
});

describe("invoke never hands a connection's key to an address a tenant chose", () => {
  it.each([{ flags: [] }, { flags: ['--trust-agent-url'] }, { flags: ['--agent-hosts', 'CAPTURE_HOST'] }])(
    "refuses a tenant's address for the platform connection's key, with $flags",
    async ({ flags }) => {
      const hosts = flags.map((flag) => (flag === 'CAPTURE_HOST' ? new URL(world.captureUrl).host : flag));
      const result = await adminInvokes('via-platform', hosts);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        'not sending the key of ClusterPlatformConnection platform (the connection of agentdeployment team-mallory/via-platform)',
      );
      expect(result.stderr).toContain('spec.agentHosts');
      expect(result.stderr).not.toContain(PLATFORM_KEY);
      expect(world.captured).toEqual([]);
    },
  );

  it.each([
    { name: 'via-team-a-only', rule: 'its namespaceSelector does not match namespace team-mallory' },
    { name: 'via-unscoped', rule: 'it has no namespaceSelector, so it serves no namespace' },
  ])('refuses $name: the connection does not serve the namespace', async ({ name, rule }) => {
    const result = await adminInvokes(name, ['--trust-agent-url']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('(ConnectionNotAllowed)');
    expect(result.stderr).toContain(rule);
    expect(result.stderr).not.toContain(PLATFORM_KEY);
    expect(world.captured).toEqual([]);
  });
});
