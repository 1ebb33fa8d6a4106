// POST /v2/deployments: every shape rule answers 422 with the spec's HTTPValidationError
// and a pydantic-style loc/type; every cross-field rule answers 400 {"detail"}.
import { beforeAll, describe, expect, it } from 'vitest';
import { Deployment, HTTPValidationError, DetailError } from '../../src/controlplane/models/index.js';
import {
  containerBody,
  repoHostBody,
  startEmulator,
  uniqueName,
  type DeploymentBody,
  type EmulatorClient,
  type WireDeployment,
} from './helpers.js';

let client: EmulatorClient;
let listenerId: string;
let integrationId: string;
let serverlessListenerId: string;

beforeAll(async () => {
  client = await startEmulator();
  ({ listenerId, integrationId } = await client.defaults());
  const tenants = await client.call<{ tenant_id: string }[]>('GET', '/_emulator/tenants');
  const tenantId = tenants.body[0]?.tenant_id ?? '';
  const seeded = await client.call<{ id: string }>('POST', `/_emulator/tenants/${tenantId}/listeners`, {
    body: { compute_type: 'serverless' },
  });
  serverlessListenerId = seeded.body.id;
});

type BodyMutation = (body: DeploymentBody) => void;
const container = (mutate: BodyMutation) => (): DeploymentBody => {
  const body = containerBody(listenerId);
  mutate(body);
  return body;
};
const repo = (mutate: BodyMutation) => (): DeploymentBody => {
  const body = repoHostBody(integrationId);
  mutate(body);
  return body;
};
const spec = (resourceSpec: Record<string, unknown>) =>
  container((b) => {
    b.source_config.resource_spec = resourceSpec;
  });

describe('422: shape errors carry loc, msg and a pydantic type', () => {
  const cases: { name: string; body: () => unknown; loc: (string | number)[]; type: string }[] = [
    {
      name: 'name missing',
      body: container((b) => Reflect.deleteProperty(b, 'name')),
      loc: ['body', 'name'],
      type: 'missing',
    },
    {
      name: 'name not a string',
      body: container((b) => Object.assign(b, { name: 7 })),
      loc: ['body', 'name'],
      type: 'string_type',
    },
    {
      name: 'source missing',
      body: container((b) => Reflect.deleteProperty(b, 'source')),
      loc: ['body', 'source'],
      type: 'missing',
    },
    {
      name: 'source unknown',
      body: container((b) => Object.assign(b, { source: 'ftp' })),
      loc: ['body', 'source'],
      type: 'enum',
    },
    {
      name: 'secrets missing',
      body: container((b) => Reflect.deleteProperty(b, 'secrets')),
      loc: ['body', 'secrets'],
      type: 'missing',
    },
    {
      name: 'secrets not a list',
      body: container((b) => Object.assign(b, { secrets: {} })),
      loc: ['body', 'secrets'],
      type: 'list_type',
    },
    {
      name: 'secret value missing',
      body: container((b) => Object.assign(b, { secrets: [{ name: 'A' }] })),
      loc: ['body', 'secrets', 0, 'value'],
      type: 'missing',
    },
    {
      name: 'source_config missing',
      body: container((b) => Reflect.deleteProperty(b, 'source_config')),
      loc: ['body', 'source_config'],
      type: 'missing',
    },
    {
      name: 'listener_id not a uuid',
      body: container((b) => (b.source_config.listener_id = 'abc')),
      loc: ['body', 'source_config', 'listener_id'],
      type: 'uuid_parsing',
    },
    {
      name: 'deployment_type unknown',
      body: repo((b) => (b.source_config.deployment_type = 'staging')),
      loc: ['body', 'source_config', 'deployment_type'],
      type: 'enum',
    },
    {
      name: 'build_on_push not boolean',
      body: repo((b) => (b.source_config.build_on_push = 'yes')),
      loc: ['body', 'source_config', 'build_on_push'],
      type: 'bool_type',
    },
    {
      name: 'cpu below 0.1',
      body: spec({ cpu: 0.05 }),
      loc: ['body', 'source_config', 'resource_spec', 'cpu'],
      type: 'greater_than_equal',
    },
    {
      name: 'cpu above 8',
      body: spec({ cpu: 8.01 }),
      loc: ['body', 'source_config', 'resource_spec', 'cpu'],
      type: 'less_than_equal',
    },
    {
      name: 'cpu_limit above 16',
      body: spec({ cpu_limit: 16.04 }),
      loc: ['body', 'source_config', 'resource_spec', 'cpu_limit'],
      type: 'less_than_equal',
    },
    {
      name: 'queue_cpu below 0.1',
      body: spec({ queue_cpu: 0 }),
      loc: ['body', 'source_config', 'resource_spec', 'queue_cpu'],
      type: 'greater_than_equal',
    },
    {
      name: 'queue_cpu_limit above 16',
      body: spec({ queue_cpu_limit: 17 }),
      loc: ['body', 'source_config', 'resource_spec', 'queue_cpu_limit'],
      type: 'less_than_equal',
    },
    {
      name: 'cache_cpu above 8',
      body: spec({ cache_cpu: 9 }),
      loc: ['body', 'source_config', 'resource_spec', 'cache_cpu'],
      type: 'less_than_equal',
    },
    {
      name: 'cache_cpu_limit below 0.1',
      body: spec({ cache_cpu_limit: 0.01 }),
      loc: ['body', 'source_config', 'resource_spec', 'cache_cpu_limit'],
      type: 'greater_than_equal',
    },
    {
      name: 'cpu not a number',
      body: spec({ cpu: '1' }),
      loc: ['body', 'source_config', 'resource_spec', 'cpu'],
      type: 'float_type',
    },
    {
      name: 'memory_mb fractional',
      body: spec({ memory_mb: 512.5 }),
      loc: ['body', 'source_config', 'resource_spec', 'memory_mb'],
      type: 'int_from_float',
    },
    {
      name: 'labels values not strings',
      body: spec({ labels: { a: 1 } }),
      loc: ['body', 'source_config', 'resource_spec', 'labels', 'a'],
      type: 'string_type',
    },
    {
      name: 'volume name not a DNS label',
      body: spec({ volumes: [{ name: 'Data_1' }] }),
      loc: ['body', 'source_config', 'resource_spec', 'volumes', 0, 'name'],
      type: 'string_pattern_mismatch',
    },
    {
      name: 'volume mount without mountPath',
      body: spec({ volumes: [{ name: 'data' }], volume_mounts: [{ name: 'data' }] }),
      loc: ['body', 'source_config', 'resource_spec', 'volume_mounts', 0, 'mountPath'],
      type: 'missing',
    },
    {
      name: 'sidecar image missing',
      body: spec({ sidecars: [{ name: 'proxy' }] }),
      loc: ['body', 'source_config', 'resource_spec', 'sidecars', 0, 'image'],
      type: 'missing',
    },
    {
      name: 'imagePullPolicy unknown',
      body: spec({ init_containers: [{ name: 'init', image: 'i', imagePullPolicy: 'Sometimes' }] }),
      loc: ['body', 'source_config', 'resource_spec', 'init_containers', 0, 'imagePullPolicy'],
      type: 'enum',
    },
    {
      name: 'sidecar restartPolicy Never',
      body: spec({ sidecars: [{ name: 'proxy', image: 'i', restartPolicy: 'Never' }] }),
      loc: ['body', 'source_config', 'resource_spec', 'sidecars', 0, 'restartPolicy'],
      type: 'enum',
    },
    {
      name: 'env name not a C identifier',
      body: spec({ sidecars: [{ name: 'proxy', image: 'i', env: [{ name: '1PORT', value: '1' }] }] }),
      loc: ['body', 'source_config', 'resource_spec', 'sidecars', 0, 'env', 0, 'name'],
      type: 'string_pattern_mismatch',
    },
    {
      name: 'env valueFrom with a value',
      body: spec({
        sidecars: [
          { name: 'proxy', image: 'i', env: [{ name: 'A', value: 'x', valueFrom: { secretKeyRef: {} } }] },
        ],
      }),
      loc: ['body', 'source_config', 'resource_spec', 'sidecars', 0, 'env', 0, 'valueFrom'],
      type: 'value_error',
    },
    {
      name: 'image_pull_secrets entry without name',
      body: spec({ image_pull_secrets: [{}] }),
      loc: ['body', 'source_config', 'resource_spec', 'image_pull_secrets', 0, 'name'],
      type: 'missing',
    },
  ];

  it.each(cases)('$name', async ({ body, loc, type }) => {
    const response = await client.call('POST', '/v2/deployments', { body: body() });
    expect(response.status).toBe(422);
    const parsed = HTTPValidationError.parse(response.body);
    expect(parsed.detail).toContainEqual(expect.objectContaining({ loc, type }));
  });

  it('reports every shape error at once', async () => {
    const response = await client.call('POST', '/v2/deployments', {
      body: { name: 1, source: 'x', source_config: {}, source_revision_config: {} },
    });
    const parsed = HTTPValidationError.parse(response.body);
    expect(parsed.detail.map((e) => e.loc.join('.'))).toEqual(['body.name', 'body.source', 'body.secrets']);
  });

  it.each([
    ['{"name": "a",', 13],
    ['{"name": }', 9],
    ['{"name" "a"}', 8],
    ['[1, 2', 5],
  ])('malformed JSON %s is json_invalid at position %i', async (rawBody, position) => {
    const response = await client.call('POST', '/v2/deployments', { rawBody });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      detail: [{ loc: ['body', position], msg: 'JSON decode error', type: 'json_invalid' }],
    });
  });

  it('an empty body is a missing body', async () => {
    const response = await client.call('POST', '/v2/deployments', { rawBody: '' });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] });
  });
});

describe('400: cross-field and state rules', () => {
  const cases: { name: string; body: () => DeploymentBody; detail: RegExp }[] = [
    // Source applicability, one row per field.
    {
      name: 'repo_url on external_container',
      body: container((b) => (b.source_config.repo_url = 'https://g/x')),
      detail: /repo_url does not apply to source external_container/,
    },
    {
      name: 'integration_id on external_container',
      body: container((b) => (b.source_config.integration_id = integrationId)),
      detail: /integration_id does not apply/,
    },
    {
      name: 'deployment_type on external_container',
      body: container((b) => (b.source_config.deployment_type = 'dev')),
      detail: /deployment_type does not apply/,
    },
    {
      name: 'build_on_push on external_container',
      body: container((b) => (b.source_config.build_on_push = false)),
      detail: /build_on_push does not apply/,
    },
    {
      name: 'install_command on external_container',
      body: container((b) => (b.source_config.install_command = 'npm ci')),
      detail: /install_command does not apply/,
    },
    {
      name: 'build_command on external_container',
      body: container((b) => (b.source_config.build_command = 'npm run build')),
      detail: /build_command does not apply/,
    },
    {
      name: 'repo_ref on external_container',
      body: container((b) => (b.source_revision_config.repo_ref = 'main')),
      detail: /repo_ref does not apply/,
    },
    {
      name: 'graph_config_path on external_container',
      body: container((b) => (b.source_revision_config.graph_config_path = 'g.json')),
      detail: /graph_config_path does not apply/,
    },
    {
      name: 'image_uri on repo_host',
      body: repo((b) => (b.source_revision_config.image_uri = 'img')),
      detail: /image_uri does not apply to source repo_host/,
    },
    {
      name: 'resource_spec on repo_host',
      body: repo((b) => (b.source_config.resource_spec = { cpu: 1 })),
      detail: /resource_spec does not apply/,
    },
    {
      name: 'listener_id on repo_host',
      body: repo((b) => (b.source_config.listener_id = listenerId)),
      detail: /listener_id does not apply/,
    },
    {
      name: 'listener_config on repo_host',
      body: repo((b) => (b.source_config.listener_config = { cluster_namespace: 'default' })),
      detail: /listener_config does not apply/,
    },
    {
      name: 'custom_url on repo_host',
      body: repo((b) => (b.source_config.custom_url = 'https://mine')),
      detail: /custom_url does not apply to source repo_host .*read-only/,
    },
    {
      name: 'custom_url on internal_container',
      body: container((b) => {
        b.source = 'internal_container';
        b.source_config.custom_url = 'https://x';
      }),
      detail: /custom_url does not apply to source internal_container/,
    },
    // Required per source.
    {
      name: 'repo_host without repo_url',
      body: repo((b) => (b.source_config.repo_url = null)),
      detail: /source_config.repo_url is required for source repo_host/,
    },
    {
      name: 'repo_host without integration_id',
      body: repo((b) => Reflect.deleteProperty(b.source_config, 'integration_id')),
      detail: /integration_id is required/,
    },
    {
      name: 'repo_host without repo_ref',
      body: repo((b) => (b.source_revision_config.repo_ref = null)),
      detail: /repo_ref is required/,
    },
    {
      name: 'external_container without image_uri',
      body: container((b) => (b.source_revision_config = {})),
      detail: /image_uri is required for source external_container/,
    },
    {
      name: 'external_container without listener_id',
      body: container((b) => (b.source_config = {})),
      detail: /listener_id is required/,
    },
    {
      name: 'internal_container without image_uri',
      body: container((b) => {
        b.source = 'internal_container';
        b.source_revision_config = {};
      }),
      detail: /image_uri is required for source internal_container/,
    },
    // Tag refs.
    {
      name: 'build_on_push with a tag ref',
      body: repo((b) => {
        b.source_config.build_on_push = true;
        b.source_revision_config.repo_ref = 'refs/tags/v1';
      }),
      detail: /build_on_push cannot be true .*tag/,
    },
    // References into the tenant.
    {
      name: 'unknown integration_id',
      body: repo((b) => (b.source_config.integration_id = '00000000-0000-4000-8000-000000000001')),
      detail: /integration_id .* is not an integration of this tenant/,
    },
    {
      name: 'unknown listener_id',
      body: container((b) => (b.source_config.listener_id = '00000000-0000-4000-8000-000000000001')),
      detail: /listener_id .* is not a listener of this tenant/,
    },
    {
      name: 'cluster_namespace not of the listener',
      body: container((b) => (b.source_config.listener_config = { cluster_namespace: 'prod' })),
      detail: /cluster_namespace "prod" is not one of the listener's namespaces/,
    },
    {
      name: 'cluster_namespace on a serverless listener',
      body: container((b) => {
        b.source_config.listener_id = serverlessListenerId;
        b.source_config.listener_config = { cluster_namespace: 'default' };
      }),
      detail: /only to a listener of compute type cluster/,
    },
    {
      name: 'cluster_namespace without a listener',
      body: container((b) => {
        b.source = 'internal_container';
        b.source_config = { listener_config: { cluster_namespace: 'default' } };
      }),
      detail: /cluster_namespace needs a source_config.listener_id/,
    },
    // Volume mounts and pod-level names.
    {
      name: 'volume_mounts naming no volume',
      body: spec({ volumes: [{ name: 'data' }], volume_mounts: [{ name: 'cache', mountPath: '/c' }] }),
      detail: /volume_mounts\[0\].name "cache" does not name a volume/,
    },
    {
      name: 'volume_mounts without any volume',
      body: spec({ volume_mounts: [{ name: 'data', mountPath: '/d' }] }),
      detail: /volume_mounts\[0\].name "data" does not name a volume/,
    },
    {
      name: 'sidecar volumeMounts naming no volume',
      body: spec({
        volumes: [{ name: 'data' }],
        sidecars: [{ name: 'p', image: 'i', volumeMounts: [{ name: 'logs', mountPath: '/l' }] }],
      }),
      detail: /sidecars\[0\].volumeMounts\[0\].name "logs"/,
    },
    {
      name: 'init container volumeMounts naming no volume',
      body: spec({
        init_containers: [{ name: 'i', image: 'i', volumeMounts: [{ name: 'x', mountPath: '/x' }] }],
      }),
      detail: /init_containers\[0\].volumeMounts\[0\].name "x"/,
    },
    {
      name: 'duplicate volume names',
      body: spec({ volumes: [{ name: 'data' }, { name: 'data' }] }),
      detail: /volumes\[1\].name "data" is not unique/,
    },
    {
      name: 'duplicate container names',
      body: spec({ init_containers: [{ name: 'x', image: 'i' }], sidecars: [{ name: 'x', image: 'i' }] }),
      detail: /sidecars\[0\].name "x" is not unique/,
    },
    {
      name: 'cpu_limit below cpu',
      body: spec({ cpu: 2, cpu_limit: 1 }),
      detail: /cpu_limit \(1\) must not be below .*cpu \(2\)/,
    },
    {
      name: 'memory_limit_mb below memory_mb',
      body: spec({ memory_mb: 1024, memory_limit_mb: 512 }),
      detail: /memory_limit_mb/,
    },
    {
      name: 'min_scale above max_scale',
      body: spec({ min_scale: 3, max_scale: 1 }),
      detail: /min_scale \(3\) must not exceed/,
    },
    // Names and secrets.
    { name: 'empty name', body: container((b) => (b.name = ' ')), detail: /name must not be empty/ },
    {
      name: 'duplicate secret names',
      body: container(
        (b) =>
          (b.secrets = [
            { name: 'A', value: 'x' },
            { name: 'A', value: 'y' },
          ]),
      ),
      detail: /secrets\[1\].name "A" is not unique/,
    },
  ];

  it.each(cases)('$name', async ({ body, detail }) => {
    const response = await client.call('POST', '/v2/deployments', { body: body() });
    expect(response.status).toBe(400);
    expect(DetailError.parse(response.body).detail).toMatch(detail);
  });

  it('a name is unique in a tenant until the deployment is gone', async () => {
    const body = containerBody(listenerId);
    expect((await client.call('POST', '/v2/deployments', { body })).status).toBe(201);
    const again = await client.call('POST', '/v2/deployments', { body: { ...body } });
    expect(again.status).toBe(400);
    expect(DetailError.parse(again.body).detail).toMatch(/already exists/);
  });

  it('a secret value never appears in an error', async () => {
    const body = containerBody(listenerId, {
      secrets: [
        { name: 'T', value: 'super-secret-value' },
        { name: 'T', value: 'super-secret-value' },
      ],
    });
    const response = await client.call('POST', '/v2/deployments', { body });
    expect(JSON.stringify(response.body)).not.toContain('super-secret-value');
  });
});

describe('201: what create makes', () => {
  it('answers a Deployment with its first revision, READY at phase 0', async () => {
    const response = await client.call<WireDeployment>('POST', '/v2/deployments', {
      body: containerBody(listenerId),
    });
    expect(response.status).toBe(201);
    const deployment = Deployment.parse(response.body);
    expect(deployment.latest_revision_id).not.toBeNull();
    expect(deployment.active_revision_id).toBe(deployment.latest_revision_id);
    expect(deployment.status).toBe('READY');
    const got = await client.call('GET', `/v2/deployments/${deployment.id}`);
    expect(got.body).toEqual(response.body);
  });

  it('sets custom_url for repo_host to its agent runtime, and a fake 40-hex commit sha', async () => {
    const response = await client.call<WireDeployment>('POST', '/v2/deployments', {
      body: repoHostBody(integrationId),
    });
    expect(response.status).toBe(201);
    expect(response.body.source_config.custom_url).toBe(`${client.url}/agents/${response.body.id}`);
    expect(response.body.source_revision_config.repo_commit_sha).toMatch(/^[0-9a-f]{40}$/);
  });

  it('keeps a user custom_url for external_container and internal_container needs no listener', async () => {
    const external = await client.call<WireDeployment>('POST', '/v2/deployments', {
      body: containerBody(listenerId, {
        source_config: { listener_id: listenerId, custom_url: 'https://agent.example' },
      }),
    });
    expect(external.body.source_config.custom_url).toBe('https://agent.example');
    const unnamed = await client.call<WireDeployment>('POST', '/v2/deployments', {
      body: containerBody(listenerId),
    });
    expect(unnamed.body.source_config.custom_url).toBe(`${client.url}/agents/${unnamed.body.id}`);
    const internal = await client.call<WireDeployment>('POST', '/v2/deployments', {
      body: containerBody(listenerId, { source: 'internal_container', source_config: {} }),
    });
    expect(internal.status).toBe(201);
  });

  it('creates a tracing project of the same name', async () => {
    const name = uniqueName('traced');
    await client.call('POST', '/v2/deployments', { body: containerBody(listenerId, { name }) });
    const projects = await client.call<{ name: string }[]>('GET', '/_emulator/tracing-projects');
    expect(projects.body.map((p) => p.name)).toContain(name);
  });

  it('accepts a cluster_namespace of the listener and lowercases ids', async () => {
    const response = await client.call<WireDeployment>('POST', '/v2/deployments', {
      body: containerBody(listenerId, {
        source_config: {
          listener_id: listenerId.toUpperCase(),
          listener_config: { cluster_namespace: 'agents' },
        },
      }),
    });
    expect(response.status).toBe(201);
    expect(response.body.source_config.listener_id).toBe(listenerId);
    expect(response.body.source_config.listener_config).toEqual({ cluster_namespace: 'agents' });
  });
});
