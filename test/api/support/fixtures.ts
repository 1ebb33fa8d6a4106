// Valid AgentDeployment objects, one per source, that tests mutate into invalid ones.
// Each call returns a fresh deep copy.
import type { AgentDeploymentSpecInput } from '../../../src/api/agentdeployment/index.js';

export const LISTENER_ID = '7d4d5c8e-2a8b-4f6e-9c1d-3b2a1f0e9d87';
export const INTEGRATION_ID = '0f8e6a52-5d7c-4b1a-9e3f-6c2d8b7a4e10';

export interface TestObject {
  apiVersion: 'agentplatform.io/v1alpha1';
  kind: 'AgentDeployment';
  metadata: { name: string; namespace: string };
  spec: AgentDeploymentSpecInput;
}

export function repoHostObject(): TestObject {
  return {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name: 'repo-agent', namespace: 'team-a' },
    spec: {
      source: 'repo_host',
      sourceConfig: {
        integrationId: INTEGRATION_ID,
        repoUrl: 'https://github.com/example/agent',
        deploymentType: 'dev',
        buildOnPush: true,
        installCommand: 'npm ci',
        buildCommand: 'npm run build',
      },
      sourceRevisionConfig: { repoRef: 'main', graphConfigPath: 'langgraph.json' },
      secrets: [
        { name: 'OPENAI_API_KEY', valueFrom: { secretKeyRef: { name: 'agent-secrets', key: 'openai' } } },
      ],
    },
  };
}

export function externalContainerObject(): TestObject {
  return {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name: 'image-agent', namespace: 'team-a' },
    spec: {
      name: 'image-agent-prod',
      source: 'external_container',
      sourceConfig: {
        customUrl: 'https://agent.example.com',
        listenerId: LISTENER_ID,
        listenerConfig: { clusterNamespace: 'agents' },
        resourceSpec: {
          minScale: 1,
          maxScale: 3,
          cpu: 1,
          cpuLimit: 2.5,
          memoryMb: 1024,
          labels: { team: 'a' },
          serviceAccountName: 'agent',
          imagePullSecrets: [{ name: 'registry' }],
          volumes: [
            { name: 'config', configMap: { name: 'agent-config', items: [{ key: 'a', path: 'a' }] } },
            { name: 'scratch', emptyDir: {} },
          ],
          volumeMounts: [{ name: 'config', mountPath: '/etc/agent', readOnly: true }],
          initContainers: [
            {
              name: 'migrate',
              image: 'registry.example.com/migrate:1',
              command: ['/bin/migrate'],
              volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
            },
          ],
          sidecars: [
            {
              name: 'proxy',
              image: 'registry.example.com/proxy:1.4',
              imagePullPolicy: 'IfNotPresent',
              restartPolicy: 'Always',
              env: [
                { name: 'UPSTREAM', value: 'http://localhost:8000' },
                { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
                {
                  name: 'EMPTY_WITH_SOURCE',
                  value: '',
                  valueFrom: { fieldRef: { fieldPath: 'metadata.name' } },
                },
              ],
              envFrom: [{ configMapRef: { name: 'proxy-env' } }],
              resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } },
              securityContext: { runAsNonRoot: true, capabilities: { drop: ['ALL'] } },
              volumeMounts: [{ name: 'config', mountPath: '/etc/proxy' }],
            },
          ],
        },
      },
      sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1.2.0' },
      secrets: [{ name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: 'agent-secrets', key: 'token' } } }],
      deletionPolicy: 'Orphan',
    },
  };
}
