// spec.secrets in the Kubernetes shapes: a plain `value`, a `valueFrom.secretKeyRef` and a
// `valueFrom.configMapKeyRef`. All reach the control plane as the deployment's secrets (the
// only environment its API takes), and a change of any makes a new revision. Asserted on the control plane's own
// record, through its admin API.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NAMESPACE, Stack, condition, containerAgent, isReady } from './harness.js';

const CONFIG_MAPS = { group: '', version: 'v1', plural: 'configmaps' };

let stack: Stack;
let listenerId: string;

beforeEach(async () => {
  stack = await Stack.start({ operator: { resyncPeriodMs: 1_000 } });
  listenerId = await stack.listenerId();
});
afterEach(async () => {
  await stack.close();
});

async function putConfigMap(name: string, data: Record<string, string>): Promise<void> {
  const existing = await stack.client.list(CONFIG_MAPS, { namespace: NAMESPACE });
  if (existing.items.some((item) => item.metadata.name === name))
    await stack.client.mergePatch(CONFIG_MAPS, NAMESPACE, name, { data });
  else
    await stack.client.create(CONFIG_MAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: NAMESPACE },
      data,
    });
}

const fromConfigMap = (name: string, key: string) => ({ valueFrom: { configMapKeyRef: { name, key } } });

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

  it('rolls a new revision when a referenced ConfigMap changes, and records its version', async () => {
    await putConfigMap('settings', { region: 'eu-west-1' });
    await stack.apply(
      containerAgent('configmap-env', listenerId, {
        secrets: [
          { name: 'LOG_LEVEL', value: 'info' },
          { name: 'REGION', ...fromConfigMap('settings', 'region') },
        ],
      }),
    );
    const first = await stack.waitFor('configmap-env', isReady, 'Ready');
    expect((await stack.deployments())[0]?.secrets).toEqual([
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'REGION', value: 'eu-west-1' },
    ]);
    expect(first.status?.secretVersions).toEqual([
      { name: 'ConfigMap/settings', resourceVersion: expect.any(String) as string },
    ]);

    await putConfigMap('settings', { region: 'us-east-1' });
    const second = await stack.waitFor(
      'configmap-env',
      (o) => isReady(o) && o.status?.activeRevisionId !== first.status?.activeRevisionId,
      'Ready on a new revision after the ConfigMap changed',
    );
    expect((await stack.deployments())[0]?.secrets).toEqual([
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'REGION', value: 'us-east-1' },
    ]);
    expect(second.status?.secretVersions).not.toEqual(first.status?.secretVersions);
  });

  it('waits for a missing ConfigMap, naming the field, then proceeds when it appears', async () => {
    await stack.apply(
      containerAgent('late-configmap', listenerId, {
        secrets: [{ name: 'REGION', ...fromConfigMap('late-settings', 'region') }],
      }),
    );
    const waiting = await stack.waitFor(
      'late-configmap',
      (o) => condition(o, 'Ready')?.reason === 'SecretNotFound',
      'waiting for its ConfigMap',
    );
    expect(condition(waiting, 'Ready')?.message).toContain(
      'spec.secrets (REGION, valueFrom.configMapKeyRef): ConfigMap "late-settings" not found',
    );
    expect(await stack.deployments()).toHaveLength(0);
    await putConfigMap('late-settings', { region: 'ap-south-1' });
    await stack.waitFor('late-configmap', isReady, 'Ready');
    expect((await stack.deployments())[0]?.secrets).toEqual([{ name: 'REGION', value: 'ap-south-1' }]);
  });

  it('sends every key of an envFrom ConfigMap under its prefix, and rolls a revision when it changes', async () => {
    await putConfigMap('app-settings', { region: 'eu-west-1', mode: 'fast' });
    await stack.putSecret('app-keys', { TOKEN: 'token-envfrom-55aa' });
    await stack.apply(
      containerAgent('envfrom-env', listenerId, {
        envFrom: [
          { prefix: 'APP_', configMapRef: { name: 'app-settings' } },
          { secretRef: { name: 'app-keys' } },
        ],
        secrets: [{ name: 'APP_mode', value: 'explicit-wins' }],
      }),
    );
    const first = await stack.waitFor('envfrom-env', isReady, 'Ready');
    expect((await stack.deployments())[0]?.secrets).toEqual([
      { name: 'APP_region', value: 'eu-west-1' },
      { name: 'TOKEN', value: 'token-envfrom-55aa' },
      { name: 'APP_mode', value: 'explicit-wins' },
    ]);

    await putConfigMap('app-settings', { region: 'us-east-1', mode: 'fast' });
    await stack.waitFor(
      'envfrom-env',
      (o) => isReady(o) && o.status?.activeRevisionId !== first.status?.activeRevisionId,
      'Ready on a new revision after the envFrom ConfigMap changed',
    );
    expect((await stack.deployments())[0]?.secrets).toEqual([
      { name: 'APP_region', value: 'us-east-1' },
      { name: 'TOKEN', value: 'token-envfrom-55aa' },
      { name: 'APP_mode', value: 'explicit-wins' },
    ]);
    const everything = JSON.stringify([
      await stack.waitFor('envfrom-env', isReady, 'Ready'),
      await stack.events(),
      stack.logLines,
    ]);
    expect(everything).not.toContain('token-envfrom-55aa');
  });
});
