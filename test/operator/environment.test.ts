// spec.secrets in the Kubernetes shapes: a plain `value` next to a `valueFrom.secretKeyRef`.
// Both reach the control plane as the deployment's secrets (the only environment its API
// takes), and a change of either makes a new revision. Asserted on the control plane's own
// record, through its admin API.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Stack, containerAgent, isReady } from './harness.js';

let stack: Stack;
let listenerId: string;

beforeEach(async () => {
  stack = await Stack.start({ operator: { resyncPeriodMs: 1_000 } });
  listenerId = await stack.listenerId();
});
afterEach(async () => {
  await stack.close();
});

describe('environment of a deployment', () => {
  it('sends a plain value with the Secret-sourced ones, and rolls a revision when it changes', async () => {
    await stack.putSecret('env-secrets', { token: 'token-value-7d21' });
    const secrets = (logLevel: string) => [
      { name: 'LOG_LEVEL', value: logLevel },
      { name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: 'env-secrets', key: 'token' } } },
    ];
    await stack.apply(containerAgent('plain-env', listenerId, { secrets: secrets('info') }));
    const first = await stack.waitFor('plain-env', isReady, 'Ready');
    expect((await stack.deployments())[0]?.secrets).toEqual([
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'API_TOKEN', value: 'token-value-7d21' },
    ]);

    await stack.patchSpec('plain-env', { secrets: secrets('debug') });
    await stack.waitFor(
      'plain-env',
      (o) => isReady(o) && o.status?.activeRevisionId !== first.status?.activeRevisionId,
      'Ready on a new revision',
    );
    expect((await stack.deployments())[0]?.secrets).toEqual([
      { name: 'LOG_LEVEL', value: 'debug' },
      { name: 'API_TOKEN', value: 'token-value-7d21' },
    ]);
  });
});
