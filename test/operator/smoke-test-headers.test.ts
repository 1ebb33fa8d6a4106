// spec.smokeTest.headers end to end against both emulators: an agent with custom
// authentication (the runtime emulator's /_emulator/agent-access) expects a header of its own;
// the operator sends it, its value read from a Secret of the object's namespace, and never
// shows the value in status, events or logs, even when the agent echoes it.
import { afterEach, describe, expect, it } from 'vitest';
import { Stack, condition, containerAgent, isReady, type AgentDeploymentObject } from './harness.js';

const TOKEN = 'user-token-5f2a9c7e1b3d';
const HEADER = 'x-user-token';
const WITH_HEADER = {
  // The emulated agent echoes the input: the verdict quotes the token unless it is redacted.
  input: { messages: [{ role: 'user', content: `ping ${TOKEN}` }] },
  expect: { contains: 'ping' },
  headers: [{ name: HEADER, valueFrom: { secretKeyRef: { name: 'agent-auth', key: 'token' } } }],
};
type WithVerdict = AgentDeploymentObject & {
  status?: AgentDeploymentObject['status'] & { smokeTest?: { result: string; message: string } };
};

let stack: Stack;
afterEach(async () => {
  await stack.close();
});

const verdictOf = (object: AgentDeploymentObject) => (object as WithVerdict).status?.smokeTest;

describe('spec.smokeTest.headers', () => {
  it('sends the custom-auth header from a Secret: fails clearly without it, passes with it, never shows it', async () => {
    stack = await Stack.start({
      operator: { resyncPeriodMs: 1_000 },
      reconciler: { smokeTestRetryMs: 100, smokeTestRetryMaxMs: 400 },
    });
    const listenerId = await stack.listenerId();
    await stack.apply(containerAgent('custom', listenerId, { smokeTest: WITH_HEADER }));

    // The header's Secret does not exist yet: the test fails, naming the field, with no call.
    const missing = await stack.waitFor(
      'custom',
      (o) => verdictOf(o)?.result === 'Failed',
      'failed for the missing header Secret',
    );
    expect(verdictOf(missing)?.message).toContain(
      `spec.smokeTest.headers[${HEADER}].valueFrom.secretKeyRef: Secret "agent-auth" has no key "token"`,
    );
    const deploymentId = missing.status?.deploymentId ?? '';
    await stack.admin('PUT', `/agent-access/${deploymentId}`, {
      custom_auth: { headers: { [HEADER]: TOKEN } },
    });

    // A wrong value: the agent refuses it (403), and a new Secret version runs the test again.
    await stack.putSecret('agent-auth', { token: 'not-the-token' });
    const refused = await stack.waitFor(
      'custom',
      (o) => verdictOf(o)?.message.includes(`Custom authentication refused the ${HEADER} header`) === true,
      'refused by the agent',
    );
    expect(condition(refused, 'Ready')?.reason).toBe('SmokeTestFailed');

    // The right value: the agent answers, and the echoed token is redacted from the verdict.
    await stack.putSecret('agent-auth', { token: TOKEN });
    const ready = await stack.waitFor('custom', isReady, 'Ready with the header');
    expect(verdictOf(ready)).toMatchObject({
      result: 'Passed',
      message: expect.stringContaining('[redacted]'),
    });

    // Without the header the agent answers 401, which the verdict says.
    await stack.patchSpec('custom', { smokeTest: { headers: null } });
    const without = await stack.waitFor(
      'custom',
      (o) => o.metadata.generation === o.status?.observedGeneration && verdictOf(o)?.result === 'Failed',
      'failed without the header',
    );
    expect(verdictOf(without)?.message).toContain(
      `unauthorized: HTTP 401: Missing custom authentication: this agent expects the ${HEADER} header`,
    );

    const { spec: _spec, ...status } = await stack.get('custom');
    expect(JSON.stringify(status)).not.toContain(TOKEN);
    expect(JSON.stringify(await stack.events('custom'))).not.toContain(TOKEN);
    expect(stack.logLines.join('\n')).not.toContain(TOKEN);
    const metrics = await stack.operators[0]?.registry.metrics();
    expect(metrics).not.toContain(TOKEN);
  });

  it("refuses a header that would replace or carry the operator's credential, naming the field and the rule", async () => {
    stack = await Stack.start({ withoutOperator: true });
    const listenerId = await stack.listenerId();
    for (const name of ['X-Api-Key', 'authorization', 'x-tenant-id', 'Host', 'bad header']) {
      const smokeTest = {
        ...WITH_HEADER,
        headers: [{ name, valueFrom: { secretKeyRef: { name: 'agent-auth', key: 'token' } } }],
      };
      await expect(stack.apply(containerAgent('forbidden', listenerId, { smokeTest }))).rejects.toThrow(
        /spec\.smokeTest\.headers\[0\]\.name.*(must not be one of the operator|should match)/,
      );
    }
  });
});
