// `invoke` on an AgentDeployment that names a connection (spec.connectionRef), as the demo's EU
// agent does: the call carries that connection's key, read with the user's kubeconfig, and
// goes only where that connection trusts. A connection invoke may not use is one line naming
// the object, the connection and the rule, never a bare 403 from the agent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  KEY,
  createAgent,
  createConnection,
  createNamespace,
  invoke,
  startInvokeWorld,
  type InvokeWorld,
} from './fixture.js';

const NAMESPACE = 'team-eu';
let world: InvokeWorld;

/** The user's environment: a key of its own that the agent does not accept, as in the demo's banner. */
const USER_ENV = { AGENT_OPERATOR_API_KEY: 'sk-users-own-key-0123' };

function call(argv: string[], env: NodeJS.ProcessEnv = USER_ENV) {
  return invoke(['--kubeconfig', world.kubeconfig, '-n', NAMESPACE, ...argv], env);
}

beforeAll(async () => {
  world = await startInvokeWorld();
  await createNamespace(world.kube, NAMESPACE);
  // The connection the agent deploys through: its own control plane (the emulator) and key.
  await createConnection(world, { namespace: NAMESPACE, name: 'eu', url: world.controlPlaneUrl, key: KEY });
  await createAgent(world, NAMESPACE, 'bot-eu', {
    connectionRef: { kind: 'PlatformConnection', name: 'eu' },
  });
  // A connection whose control plane is elsewhere, naming the capture host as an agent host.
  await createConnection(world, {
    namespace: NAMESPACE,
    name: 'allows-capture',
    url: 'https://control-plane.example.com',
    key: 'sk-connection-allows-capture',
    agentHosts: [new URL(world.captureUrl).host],
  });
  await createAgent(world, NAMESPACE, 'bot-allowed', {
    url: `${world.captureUrl}/allowed`,
    connectionRef: { kind: 'PlatformConnection', name: 'allows-capture' },
  });
  await createConnection(world, {
    namespace: NAMESPACE,
    name: 'not-ready',
    url: world.controlPlaneUrl,
    key: KEY,
    ready: false,
  });
  await createAgent(world, NAMESPACE, 'bot-not-ready', {
    connectionRef: { kind: 'PlatformConnection', name: 'not-ready' },
  });
  await createConnection(world, { namespace: NAMESPACE, name: 'no-secret', url: world.controlPlaneUrl });
  await createAgent(world, NAMESPACE, 'bot-no-secret', {
    connectionRef: { kind: 'PlatformConnection', name: 'no-secret' },
  });
  await createAgent(world, NAMESPACE, 'bot-missing', {
    connectionRef: { kind: 'PlatformConnection', name: 'missing' },
  });
});

afterAll(async () => {
  await world.close();
});

describe('invoke with the object connection', () => {
  it("calls the agent with the connection's key: no key of the user's is needed, and theirs is not sent", async () => {
    const withoutUserKey = await call(['bot-eu', 'hello EU'], {});
    expect(withoutUserKey).toMatchObject({ code: 0, stderr: '' });
    expect(withoutUserKey.stdout).toContain('You said: hello EU.');
    // The user's own (wrong) key in the environment changes nothing: the connection's is used.
    const withUserKey = await call(['bot-eu', 'hello again']);
    expect(withUserKey.code).toBe(0);
    expect(withUserKey.stdout).toContain('You said: hello again.');
  });

  it("sends the connection's key to a host its spec.agentHosts lists", async () => {
    const before = world.captured.length;
    await call(['bot-allowed', 'hi']);
    const sent = world.captured.slice(before);
    expect(sent.map((request) => request.headers['x-api-key'])).toContain('sk-connection-allows-capture');
    expect(sent.map((request) => request.headers['x-api-key'])).not.toContain(
      USER_ENV.AGENT_OPERATOR_API_KEY,
    );
  });

  it.each([
    {
      name: 'a connection that does not exist',
      object: 'bot-missing',
      says: [
        'agentdeployment team-eu/bot-missing uses PlatformConnection team-eu/missing, which invoke may not use (ConnectionNotFound)',
        'a PlatformConnection serves only its own namespace',
      ],
    },
    {
      name: 'a connection the operator has not found Ready',
      object: 'bot-not-ready',
      says: [
        'PlatformConnection team-eu/not-ready',
        '(ConnectionNotReady)',
        'the control plane refuses the key',
      ],
    },
    {
      name: 'a connection without its key Secret',
      object: 'bot-no-secret',
      says: [
        'PlatformConnection team-eu/no-secret',
        'spec.apiKeySecretRef: Secret "team-eu/no-secret-key" not found',
      ],
    },
  ])('refuses $name in one line naming the object, the connection and the rule', async ({ object, says }) => {
    const before = world.captured.length;
    const result = await call([object, 'hi']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    for (const text of says) expect(result.stderr).toContain(text);
    expect(result.stderr).not.toContain('403');
    expect(world.captured.length).toBe(before);
  });
});
