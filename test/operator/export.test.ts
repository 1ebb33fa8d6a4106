// spec.export end to end against both emulators: the operator writes the agent's facts into a
// ConfigMap of the object's namespace, owned by the object, that a Deployment consumes
// (envFrom, configMapKeyRef); updates it when the active revision changes and only then;
// restores it when someone edits or deletes it; never touches a ConfigMap it did not create;
// and deletes only its own when the spec lets it go. The Kubernetes emulator has no garbage
// collector, so the deletion with the object is checked through the ownerReference it sets.
import { afterEach, describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../../src/api/agentdeployment/index.js';
import { AGENT_DEPLOYMENTS } from '../../src/operator/operator.js';
import { isNotFound } from '../../src/runtime/kube/errors.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import type { ResourceType } from '../../src/runtime/kube/resource.js';
import {
  NAMESPACE,
  Stack,
  condition,
  containerAgent,
  isReady,
  type AgentDeploymentObject,
} from './harness.js';

const CONFIG_MAPS: ResourceType = { group: '', version: 'v1', plural: 'configmaps' };
const DEPLOYMENTS: ResourceType = { group: 'apps', version: 'v1', plural: 'deployments' };
type ConfigMap = KubeObject & { data?: Record<string, string> };
const statusOf = (object: AgentDeploymentObject) =>
  (object.status ?? {}) as NonNullable<AgentDeploymentObject['status']> & {
    customUrl?: string;
    tenantId?: string;
  };

let stack: Stack;
afterEach(async () => {
  await stack.close();
});

async function configMap(name: string): Promise<ConfigMap | undefined> {
  try {
    return await stack.client.get<ConfigMap>(CONFIG_MAPS, NAMESPACE, name);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

async function waitForConfigMap(
  name: string,
  check: (configMap: ConfigMap | undefined) => boolean,
  what: string,
): Promise<ConfigMap | undefined> {
  let found: ConfigMap | undefined;
  await stack.waitUntil(async () => check((found = await configMap(name))), what);
  return found;
}

/** The environment a container of `deployment` gets, resolved as the kubelet would, from ConfigMaps. */
async function containerEnvironment(deployment: KubeObject): Promise<Record<string, string>> {
  type Container = {
    envFrom?: Array<{ configMapRef?: { name: string } }>;
    env?: Array<{ name: string; valueFrom?: { configMapKeyRef?: { name: string; key: string } } }>;
  };
  const container = (deployment as unknown as { spec: { template: { spec: { containers: Container[] } } } })
    .spec.template.spec.containers[0];
  const environment: Record<string, string> = {};
  for (const source of container?.envFrom ?? []) {
    Object.assign(environment, (await configMap(source.configMapRef?.name ?? ''))?.data ?? {});
  }
  for (const variable of container?.env ?? []) {
    const ref = variable.valueFrom?.configMapKeyRef;
    const value = ref === undefined ? undefined : (await configMap(ref.name))?.data?.[ref.key];
    if (value === undefined)
      throw new Error(`env ${variable.name}: ConfigMap key ${ref?.name}/${ref?.key} is missing`);
    environment[variable.name] = value;
  }
  return environment;
}

async function reconcileOnce(name: string): Promise<void> {
  const at = new Date().toISOString();
  await stack.client.mergePatch(AGENT_DEPLOYMENTS, NAMESPACE, name, {
    metadata: { annotations: { [ANNOTATIONS.reconcileRequestedAt]: at } },
  });
  await stack.waitFor(name, (o) => o.status?.lastHandledReconcileAt === at, 'reconciled on request');
}

describe('spec.export', () => {
  it('writes the ConfigMap a Deployment consumes, owned by the object; updates it only when the facts change', async () => {
    stack = await Stack.start({ operator: { resyncPeriodMs: 1_000 } });
    const listenerId = await stack.listenerId();
    const applied = await stack.apply(
      containerAgent('alpha', listenerId, { export: { configMapName: 'alpha-agent' } }),
    );
    const ready = await stack.waitFor(
      'alpha',
      (o) => isReady(o) && condition(o, 'Exported')?.status === 'True',
      'Ready and exported',
    );
    const exported = await configMap('alpha-agent');
    expect(exported?.data).toEqual({
      AGENT_URL: statusOf(ready).customUrl,
      DEPLOYMENT_ID: ready.status?.deploymentId,
      DEPLOYMENT_NAME: 'alpha',
      ACTIVE_REVISION_ID: ready.status?.activeRevisionId,
      TENANT_ID: statusOf(ready).tenantId,
    });
    expect(exported?.metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'agent-operator' });
    // Garbage collection deletes it with the object: the emulator has no collector, so the reference is what is checked.
    expect(exported?.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'agentplatform.io/v1alpha1',
        kind: 'AgentDeployment',
        name: 'alpha',
        uid: applied.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(condition(ready, 'Exported')).toMatchObject({
      reason: 'Exported',
      message: expect.stringContaining('ConfigMap alpha-agent holds'),
    });

    // A workload of the namespace consumes it.
    const consumer = await stack.client.create(DEPLOYMENTS, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'support-frontend', namespace: NAMESPACE },
      spec: {
        selector: { matchLabels: { app: 'support-frontend' } },
        template: {
          metadata: { labels: { app: 'support-frontend' } },
          spec: {
            containers: [
              {
                name: 'web',
                image: 'registry.example/frontend:1',
                envFrom: [{ configMapRef: { name: 'alpha-agent' } }],
                env: [
                  {
                    name: 'SUPPORT_AGENT_URL',
                    valueFrom: { configMapKeyRef: { name: 'alpha-agent', key: 'AGENT_URL' } },
                  },
                ],
              },
            ],
          },
        },
      },
    });
    const environment = await containerEnvironment(consumer);
    expect(environment['SUPPORT_AGENT_URL']).toBe(statusOf(ready).customUrl);
    expect(environment['DEPLOYMENT_ID']).toBe(ready.status?.deploymentId);
    const reply = await fetch(`${environment['SUPPORT_AGENT_URL'] ?? ''}/ok`, {
      headers: { 'x-api-key': 'harness-key-0123456789', 'x-auth-scheme': 'platform-api-key' },
    });
    expect(reply.status).toBe(200);

    // A settled pass writes nothing: the ConfigMap's resourceVersion does not move.
    const version = exported?.metadata.resourceVersion;
    for (let pass = 0; pass < 3; pass += 1) await reconcileOnce('alpha');
    expect((await configMap('alpha-agent'))?.metadata.resourceVersion).toBe(version);

    // A new active revision is written.
    await stack.patchSpec('alpha', { sourceRevisionConfig: { imageUri: 'registry.example/agent:2' } });
    const second = await stack.waitFor(
      'alpha',
      (o) => isReady(o) && o.status?.activeRevisionId !== ready.status?.activeRevisionId,
      'Ready on the new revision',
    );
    await waitForConfigMap(
      'alpha-agent',
      (cm) => cm?.data?.['ACTIVE_REVISION_ID'] === second.status?.activeRevisionId,
      'the new revision exported',
    );
    const events = await stack.eventsOnce(
      'alpha',
      (seen) => seen.some((event) => event.note === 'Updated ConfigMap alpha-agent'),
      'the new revision Exported',
    );
    expect(events.filter((event) => event.reason === 'Exported').map((event) => event.type)).toContain(
      'Normal',
    );
  });

  it('restores its ConfigMap when someone edits or deletes it', async () => {
    stack = await Stack.start({ operator: { resyncPeriodMs: 60_000 } });
    const listenerId = await stack.listenerId();
    await stack.apply(containerAgent('alpha', listenerId, { export: { configMapName: 'alpha-agent' } }));
    const ready = await stack.waitFor(
      'alpha',
      (o) => isReady(o) && condition(o, 'Exported')?.status === 'True',
      'exported',
    );
    await stack.client.mergePatch(CONFIG_MAPS, NAMESPACE, 'alpha-agent', {
      data: { DEPLOYMENT_ID: 'tampered' },
    });
    await waitForConfigMap(
      'alpha-agent',
      (cm) => cm?.data?.['DEPLOYMENT_ID'] === ready.status?.deploymentId,
      'restored after an edit',
    );
    await stack.client.delete(CONFIG_MAPS, NAMESPACE, 'alpha-agent');
    await waitForConfigMap(
      'alpha-agent',
      (cm) => cm?.data?.['DEPLOYMENT_ID'] === ready.status?.deploymentId,
      'restored after a deletion',
    );
  });

  it('never touches a ConfigMap it did not create: Exported False names the field and the rule, the rest works', async () => {
    stack = await Stack.start({ operator: { resyncPeriodMs: 1_000 } });
    const listenerId = await stack.listenerId();
    const foreign = await stack.client.create<ConfigMap>(CONFIG_MAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'billing-settings', namespace: NAMESPACE },
      data: { RATE: '42' },
    });
    await stack.apply(containerAgent('beta', listenerId, { export: { configMapName: 'billing-settings' } }));
    const refused = await stack.waitFor(
      'beta',
      (o) => isReady(o) && condition(o, 'Exported')?.status === 'False',
      'Ready, export refused',
    );
    expect(condition(refused, 'Exported')).toMatchObject({
      reason: 'ExportConflict',
      message:
        'spec.export.configMapName: ConfigMap "billing-settings" already exists and was not created by this AgentDeployment; the operator never writes to an object it did not create: choose another name, or delete that ConfigMap',
    });
    await reconcileOnce('beta');
    const after = await configMap('billing-settings');
    expect(after?.metadata.resourceVersion).toBe(foreign.metadata.resourceVersion);
    expect(after?.data).toEqual({ RATE: '42' });
    const conflicts = await stack.eventsWithReason('beta', 'ExportConflict');
    expect(conflicts.map((event) => event.type)).toEqual(['Warning']);

    // Its removal leaves that ConfigMap alone too.
    await stack.patchSpec('beta', { export: null });
    await stack.waitFor('beta', (o) => condition(o, 'Exported') === undefined, 'the condition gone');
    expect((await configMap('billing-settings'))?.metadata.resourceVersion).toBe(
      foreign.metadata.resourceVersion,
    );
  });

  it('renaming or removing spec.export deletes only the ConfigMap the object wrote', async () => {
    stack = await Stack.start({ operator: { resyncPeriodMs: 1_000 } });
    const listenerId = await stack.listenerId();
    await stack.apply(containerAgent('gamma', listenerId, { export: { configMapName: 'gamma-agent' } }));
    await stack.waitFor('gamma', (o) => condition(o, 'Exported')?.status === 'True', 'exported');
    await stack.patchSpec('gamma', { export: { configMapName: 'gamma-agent-v2' } });
    await waitForConfigMap('gamma-agent-v2', (cm) => cm !== undefined, 'written under the new name');
    await waitForConfigMap('gamma-agent', (cm) => cm === undefined, 'the old one deleted');
    await stack.patchSpec('gamma', { export: null });
    await waitForConfigMap('gamma-agent-v2', (cm) => cm === undefined, 'deleted with spec.export');
    await stack.waitFor(
      'gamma',
      (o) => isReady(o) && condition(o, 'Exported') === undefined,
      'Ready without the condition',
    );
  });
});
