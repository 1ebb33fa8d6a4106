// The CRD <-> wire mapping: every field by name and value in both directions, absent stays
// absent, Kubernetes shapes pass through untouched, and the output is a valid wire request.
import { describe, expect, it } from 'vitest';
import {
  AgentDeploymentSpec,
  deploymentName,
  fromWireListenerConfig,
  fromWireResourceSpec,
  fromWireSourceConfig,
  fromWireSourceRevisionConfig,
  LISTENER_CONFIG_FIELDS,
  ListenerConfig,
  RESOURCE_SPEC_FIELDS,
  ResourceSpec,
  SOURCE_CONFIG_FIELDS,
  SOURCE_REVISION_CONFIG_FIELDS,
  SourceConfig,
  SourceRevisionConfig,
  toWireCreateRequest,
  toWireListenerConfig,
  toWireResourceSpec,
  toWireSecrets,
  toWireSourceConfig,
  toWireSourceRevisionConfig,
  type ResourceSpec as CrdResourceSpec,
} from '../../src/api/agentdeployment/index.js';
import {
  DeploymentCreateRequest,
  ListenerConfig as WireListenerConfig,
  ResourceSpec as WireResourceSpec,
  SourceConfig as WireSourceConfig,
  SourceRevisionConfigRequest as WireSourceRevisionConfig,
} from '../../src/controlplane/models/index.js';
import { externalContainerObject, repoHostObject } from './support/fixtures.js';

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const wireNameOf = (mapping: string | { wire: string }) =>
  typeof mapping === 'string' ? mapping : mapping.wire;

/** A valid sample value of each ResourceSpec field, distinct per field so a swap is caught. */
const RESOURCE_SPEC_SAMPLE: Required<CrdResourceSpec> = {
  minScale: 1,
  maxScale: 2,
  cpu: 0.5,
  cpuLimit: 1.5,
  memoryMb: 512,
  memoryLimitMb: 1024,
  queueMinScale: 3,
  queueMaxScale: 4,
  queueCpu: 0.6,
  queueCpuLimit: 1.6,
  queueMemoryMb: 513,
  queueMemoryLimitMb: 1025,
  orchestratorCpu: 0.7,
  orchestratorCpuLimit: 1.7,
  orchestratorMemoryMb: 514,
  orchestratorMemoryLimitMb: 1026,
  orchestratorMinScale: 5,
  orchestratorMaxScale: 6,
  executorCpu: 0.8,
  executorCpuLimit: 1.8,
  executorMemoryMb: 515,
  executorMemoryLimitMb: 1027,
  cacheCpu: 0.9,
  cacheCpuLimit: 1.9,
  cacheMemoryMb: 516,
  labels: { team: 'a' },
  annotations: { 'example.com/owner': 'b' },
  serviceAccountName: 'agent',
  imagePullSecrets: [{ name: 'registry' }],
  volumes: [{ name: 'config', configMap: { name: 'cfg' } }],
  volumeMounts: [{ name: 'config', mountPath: '/etc/agent', readOnly: true }],
  initContainers: [{ name: 'init', image: 'i:1', command: ['/init'] }],
  sidecars: [{ name: 'side', image: 's:1', restartPolicy: 'Always', env: [{ name: 'A', value: 'b' }] }],
  dbCpu: 1.1,
  dbCpuLimit: 2.1,
  dbMemoryMb: 517,
  dbMemoryLimitMb: 1028,
  dbStorageGi: 10,
  dbMaxConnections: 100,
};

describe('the tables cover every field on both sides', () => {
  it.each([
    ['ResourceSpec', RESOURCE_SPEC_FIELDS, ResourceSpec, WireResourceSpec],
    ['SourceConfig', SOURCE_CONFIG_FIELDS, SourceConfig, WireSourceConfig],
    ['SourceRevisionConfig', SOURCE_REVISION_CONFIG_FIELDS, SourceRevisionConfig, WireSourceRevisionConfig],
    ['ListenerConfig', LISTENER_CONFIG_FIELDS, ListenerConfig, WireListenerConfig],
  ] as const)('%s', (_, table, crd, wire) => {
    // listenerRef and integrationRef reach the wire as the ids they resolve to (toWireCreateRequest's ids).
    const byName = new Set(['listenerRef', 'integrationRef']);
    expect(Object.keys(table).sort()).toEqual(
      Object.keys(crd.shape)
        .filter((k) => !byName.has(k))
        .sort(),
    );
    expect(Object.values(table).map(wireNameOf).sort()).toEqual(Object.keys(wire.shape).sort());
    // Every wire name is the snake_case of its CRD name: the table holds no surprise.
    for (const [crdName, mapping] of Object.entries(table))
      expect(wireNameOf(mapping)).toBe(snakeCase(crdName));
  });

  it('the sample sets every ResourceSpec field and is valid', () => {
    expect(Object.keys(RESOURCE_SPEC_SAMPLE).sort()).toEqual(Object.keys(ResourceSpec.shape).sort());
    expect(ResourceSpec.parse(RESOURCE_SPEC_SAMPLE)).toEqual(RESOURCE_SPEC_SAMPLE);
  });
});

describe('resourceSpec', () => {
  it.each(Object.entries(RESOURCE_SPEC_FIELDS))('%s <-> %s', (crdName, wireName) => {
    const value = RESOURCE_SPEC_SAMPLE[crdName as keyof CrdResourceSpec];
    const wire = toWireResourceSpec({ [crdName]: value });
    expect(wire).toEqual({ [wireName]: value });
    expect(fromWireResourceSpec(wire)).toEqual({ [crdName]: value });
  });

  it('maps the full sample to a valid wire object and back', () => {
    const wire = toWireResourceSpec(RESOURCE_SPEC_SAMPLE);
    expect(WireResourceSpec.parse(wire)).toEqual(wire);
    expect(Object.keys(wire)).toHaveLength(Object.keys(RESOURCE_SPEC_FIELDS).length);
    expect(fromWireResourceSpec(wire)).toEqual(RESOURCE_SPEC_SAMPLE);
  });

  it('passes the Kubernetes-shaped lists and the string maps through by reference', () => {
    const wire = toWireResourceSpec(RESOURCE_SPEC_SAMPLE);
    expect(wire.volumes).toBe(RESOURCE_SPEC_SAMPLE.volumes);
    expect(wire.volume_mounts).toBe(RESOURCE_SPEC_SAMPLE.volumeMounts);
    expect(wire.init_containers).toBe(RESOURCE_SPEC_SAMPLE.initContainers);
    expect(wire.sidecars).toBe(RESOURCE_SPEC_SAMPLE.sidecars);
    expect(wire.image_pull_secrets).toBe(RESOURCE_SPEC_SAMPLE.imagePullSecrets);
    expect(wire.labels).toBe(RESOURCE_SPEC_SAMPLE.labels);
    expect(wire.annotations).toBe(RESOURCE_SPEC_SAMPLE.annotations);
  });

  it('sends the Kubernetes shapes byte for byte, camelCase names and free-form content included', () => {
    const spec = externalContainerObject().spec.sourceConfig?.resourceSpec;
    if (!spec) throw new Error('fixture has no resourceSpec');
    const before = JSON.stringify(spec);
    const wire = toWireResourceSpec(spec);
    const body = JSON.stringify(wire);
    for (const [crdName, wireName] of [
      ['volumes', 'volumes'],
      ['volumeMounts', 'volume_mounts'],
      ['initContainers', 'init_containers'],
      ['sidecars', 'sidecars'],
      ['imagePullSecrets', 'image_pull_secrets'],
    ] as const) {
      const sent = JSON.stringify((JSON.parse(body) as Record<string, unknown>)[wireName]);
      expect(sent).toBe(JSON.stringify(spec[crdName]));
    }
    expect(body).toContain('"valueFrom":{"fieldRef":{"fieldPath":"status.podIP"}}');
    expect(body).toContain('"securityContext":{"runAsNonRoot":true,"capabilities":{"drop":["ALL"]}}');
    // The mapping never touches its input.
    expect(JSON.stringify(spec)).toBe(before);
  });

  it('reads the control plane explicit nulls back as absent fields, also inside the shapes', () => {
    const wire = {
      cpu: 1,
      memory_mb: null,
      volumes: [{ name: 'v', configMap: null, emptyDir: {} }],
      sidecars: [
        { name: 's', image: 'i', env: [{ name: 'A', value: 'b', valueFrom: null }], resources: null },
      ],
    } as WireResourceSpec;
    expect(fromWireResourceSpec(wire)).toEqual({
      cpu: 1,
      volumes: [{ name: 'v', emptyDir: {} }],
      sidecars: [{ name: 's', image: 'i', env: [{ name: 'A', value: 'b' }] }],
    });
  });
});

describe('sourceConfig and sourceRevisionConfig', () => {
  it('maps a full repo_host spec', () => {
    const { spec } = repoHostObject();
    expect(toWireSourceConfig(AgentDeploymentSpec.parse(spec).sourceConfig)).toEqual({
      integration_id: spec.sourceConfig?.integrationId,
      repo_url: 'https://github.com/example/agent',
      deployment_type: 'dev',
      build_on_push: true,
      install_command: 'npm ci',
      build_command: 'npm run build',
    });
    expect(toWireSourceRevisionConfig(spec.sourceRevisionConfig)).toEqual({
      repo_ref: 'main',
      graph_config_path: 'langgraph.json',
    });
  });

  it('maps the nested resourceSpec and listenerConfig of an external_container spec', () => {
    const config = externalContainerObject().spec.sourceConfig;
    const wire = toWireSourceConfig(config);
    expect(wire.listener_config).toEqual({ cluster_namespace: 'agents' });
    expect(wire.resource_spec?.cpu_limit).toBe(2.5);
    expect(wire.resource_spec?.volumes).toBe(config?.resourceSpec?.volumes);
    expect(WireSourceConfig.parse(wire)).toEqual(wire);
    expect(fromWireSourceConfig(wire)).toEqual(config);
  });

  it('leaves absent fields absent, never null', () => {
    const wire = toWireSourceConfig({ buildOnPush: false });
    expect(wire).toEqual({ build_on_push: false });
    expect(JSON.stringify(wire)).toBe('{"build_on_push":false}');
    expect(toWireSourceConfig(undefined)).toEqual({});
    expect(toWireSourceRevisionConfig(undefined)).toEqual({});
    expect(JSON.stringify(toWireResourceSpec({}))).toBe('{}');
  });

  it('keeps false and zero, which are values and not absence', () => {
    expect(toWireSourceConfig({ buildOnPush: false, resourceSpec: { minScale: 0 } })).toEqual({
      build_on_push: false,
      resource_spec: { min_scale: 0 },
    });
  });

  it('reads a deployment response back, dropping nulls and the response-only repo_commit_sha', () => {
    expect(
      fromWireSourceConfig({
        integration_id: null,
        repo_url: 'https://github.com/example/agent',
        build_on_push: false,
        custom_url: 'https://assigned.example.com',
        resource_spec: null,
        listener_config: null,
      }),
    ).toEqual({
      repoUrl: 'https://github.com/example/agent',
      buildOnPush: false,
      customUrl: 'https://assigned.example.com',
    });
    expect(
      fromWireSourceRevisionConfig({
        repo_ref: 'main',
        graph_config_path: null,
        image_uri: null,
        repo_commit_sha: 'abc',
      } as WireSourceRevisionConfig),
    ).toEqual({ repoRef: 'main' });
    expect(fromWireListenerConfig({ cluster_namespace: 'ns' })).toEqual({ clusterNamespace: 'ns' });
    expect(toWireListenerConfig({ clusterNamespace: 'ns' })).toEqual({ cluster_namespace: 'ns' });
  });
});

describe('secrets and the create request', () => {
  const values: Record<string, string> = { 'agent-secrets/openai': 'sk-test-value' };
  const lookup = (s: { kind: string; name: string; key: string }) =>
    s.kind === 'Secret' ? values[`${s.name}/${s.key}`] : configMapValues[`${s.name}/${s.key}`];
  const configMapValues: Record<string, string> = { 'settings/region': 'eu-west-1' };

  it('resolves secret references into the wire list', () => {
    const { spec } = repoHostObject();
    expect(toWireSecrets(spec.secrets, lookup)).toEqual({
      ok: true,
      secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-test-value' }],
    });
    expect(toWireSecrets(undefined, lookup)).toEqual({ ok: true, secrets: [] });
  });

  it('sends a plain value as written, in spec order with the resolved Secret and ConfigMap keys', () => {
    const references = [
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'OPENAI_API_KEY', valueFrom: { secretKeyRef: { name: 'agent-secrets', key: 'openai' } } },
      { name: 'EMPTY', value: '' },
      { name: 'REGION', valueFrom: { configMapKeyRef: { name: 'settings', key: 'region' } } },
    ];
    expect(toWireSecrets(references, lookup)).toEqual({
      ok: true,
      secrets: [
        { name: 'LOG_LEVEL', value: 'info' },
        { name: 'OPENAI_API_KEY', value: 'sk-test-value' },
        { name: 'EMPTY', value: '' },
        { name: 'REGION', value: 'eu-west-1' },
      ],
    });
  });

  it('names the missing Secret key without any value', () => {
    const { spec } = externalContainerObject();
    expect(toWireSecrets(spec.secrets, lookup)).toEqual({
      ok: false,
      missing: { env: 'API_TOKEN', source: { kind: 'Secret', name: 'agent-secrets', key: 'token' } },
    });
  });

  it('builds a valid create request named by spec.name, else metadata.name', () => {
    const external = externalContainerObject();
    const request = toWireCreateRequest(
      { metadata: external.metadata, spec: AgentDeploymentSpec.parse(external.spec) },
      [],
    );
    expect(request.name).toBe('image-agent-prod');
    expect(DeploymentCreateRequest.parse(request)).toEqual(request);
    const repo = repoHostObject();
    const repoRequest = toWireCreateRequest(
      { metadata: repo.metadata, spec: AgentDeploymentSpec.parse(repo.spec) },
      [],
    );
    expect(repoRequest.name).toBe('repo-agent');
    expect(repoRequest.source).toBe('repo_host');
  });

  it('deploymentName prefers spec.name', () => {
    expect(deploymentName({ metadata: { name: 'meta' }, spec: {} })).toBe('meta');
    expect(deploymentName({ metadata: { name: 'meta' }, spec: { name: 'explicit' } })).toBe('explicit');
  });
});
