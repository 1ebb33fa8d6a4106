// The ConfigMap watch's wake-up, isolated: a changed ConfigMap wakes exactly the
// AgentDeployments that reference it, through valueFrom.configMapKeyRef or envFrom, in its own
// namespace; an object that references another ConfigMap, a Secret of the same name, or the
// same name in another namespace is not woken. (That a woken object rolls a revision is
// test/operator/environment.test.ts's, end to end.)
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  agentDeploymentCache,
  keysReferencingConfigMap,
} from '../../src/reconcilers/agentdeployment/setup.js';
import type { AgentDeploymentObject } from '../../src/reconcilers/agentdeployment/kube-port.js';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';

/** Never called: the cache is filled by hand, no list or watch is made. */
const NO_CLIENT = {} as KubeClient;

function agent(namespace: string, name: string, spec: Record<string, unknown>): AgentDeploymentObject {
  return {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name, namespace, uid: `${namespace}-${name}`, resourceVersion: '1' },
    spec: { source: 'external_container', ...spec },
  } as AgentDeploymentObject;
}

const configMapRef = (name: string) => ({
  secrets: [{ name: 'REGION', valueFrom: { configMapKeyRef: { name, key: 'region' } } }],
});
const configMap = (namespace: string, name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, resourceVersion: '2' },
});

describe('the ConfigMap watch wakes exactly the objects that reference the ConfigMap', () => {
  const cache = agentDeploymentCache(NO_CLIENT, [], pino({ level: 'silent' }));
  for (const object of [
    agent('team-a', 'by-key-ref', configMapRef('settings')),
    agent('team-a', 'by-env-from', { envFrom: [{ prefix: 'APP_', configMapRef: { name: 'settings' } }] }),
    agent('team-a', 'other-configmap', configMapRef('other-settings')),
    agent('team-a', 'secret-of-that-name', {
      secrets: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'settings', key: 'token' } } }],
      envFrom: [{ secretRef: { name: 'settings' } }],
    }),
    agent('team-b', 'same-name-elsewhere', configMapRef('settings')),
    agent('team-a', 'no-env', {}),
  ])
    cache.store.upsert(object);

  it('configMapKeyRef and envFrom in its namespace, nothing else', () => {
    expect(keysReferencingConfigMap(cache.store, configMap('team-a', 'settings')).sort()).toEqual([
      'team-a/by-env-from',
      'team-a/by-key-ref',
    ]);
  });

  it('a ConfigMap of another namespace wakes only that namespace’s reference', () => {
    expect(keysReferencingConfigMap(cache.store, configMap('team-b', 'settings'))).toEqual([
      'team-b/same-name-elsewhere',
    ]);
  });

  it('a ConfigMap no object references wakes none', () => {
    expect(keysReferencingConfigMap(cache.store, configMap('team-a', 'unreferenced'))).toEqual([]);
  });

  it('an object that stops referencing it is not woken any more', () => {
    cache.store.upsert({
      ...agent('team-a', 'by-key-ref', configMapRef('other-settings')),
      metadata: { name: 'by-key-ref', namespace: 'team-a', uid: 'team-a-by-key-ref', resourceVersion: '3' },
    });
    expect(keysReferencingConfigMap(cache.store, configMap('team-a', 'settings'))).toEqual([
      'team-a/by-env-from',
    ]);
  });
});
