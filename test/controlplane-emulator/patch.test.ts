// PATCH merges (null or absent leaves a field), and makes a new revision exactly when a
// non-null repo_ref, graph_config_path, image_uri, non-empty secrets or resource_spec is sent.
import { beforeAll, describe, expect, it } from 'vitest';
import { DetailError } from '../../src/controlplane/models/index.js';
import {
  containerBody,
  repoHostBody,
  startEmulator,
  type EmulatorClient,
  type WireDeployment,
  type WireRevision,
} from './helpers.js';

let client: EmulatorClient;
let listenerId: string;
let integrationId: string;
let tenantId: string;

beforeAll(async () => {
  client = await startEmulator();
  ({ listenerId, integrationId } = await client.defaults());
  const tenants = await client.call<{ tenant_id: string }[]>('GET', '/_emulator/tenants');
  tenantId = tenants.body[0]?.tenant_id ?? '';
});

async function create(source: 'repo_host' | 'external_container'): Promise<WireDeployment> {
  const body =
    source === 'repo_host'
      ? repoHostBody(integrationId, { secrets: [{ name: 'A', value: 'a' }] })
      : containerBody(listenerId, {
          source_config: {
            listener_id: listenerId,
            listener_config: { cluster_namespace: 'default' },
            resource_spec: { cpu: 1 },
          },
          secrets: [{ name: 'A', value: 'a' }],
        });
  const response = await client.call<WireDeployment>('POST', '/v2/deployments', { body });
  expect(response.status).toBe(201);
  return response.body;
}

async function revisionCount(id: string): Promise<number> {
  const response = await client.call<{ resources: WireRevision[] }>(
    'GET',
    `/v2/deployments/${id}/revisions?limit=100`,
  );
  return response.body.resources.length;
}

describe('which PATCH makes a new revision', () => {
  const cases: {
    source: 'repo_host' | 'external_container';
    patch: Record<string, unknown>;
    newRevision: boolean;
  }[] = [
    { source: 'repo_host', patch: { source_revision_config: { repo_ref: 'main' } }, newRevision: true },
    {
      source: 'repo_host',
      patch: { source_revision_config: { graph_config_path: 'other.json' } },
      newRevision: true,
    },
    { source: 'repo_host', patch: { secrets: [{ name: 'B', value: 'b' }] }, newRevision: true },
    { source: 'repo_host', patch: { secrets: [] }, newRevision: false },
    { source: 'repo_host', patch: { secrets: null }, newRevision: false },
    { source: 'repo_host', patch: { source_config: { build_on_push: true } }, newRevision: false },
    { source: 'repo_host', patch: { source_config: { install_command: 'pnpm i' } }, newRevision: false },
    { source: 'repo_host', patch: { source_revision_config: { repo_ref: null } }, newRevision: false },
    { source: 'repo_host', patch: {}, newRevision: false },
    {
      source: 'external_container',
      patch: { source_revision_config: { image_uri: 'registry.example/agent:2' } },
      newRevision: true,
    },
    {
      source: 'external_container',
      patch: { source_config: { resource_spec: { cpu: 2 } } },
      newRevision: true,
    },
    { source: 'external_container', patch: { source_config: { resource_spec: null } }, newRevision: false },
    {
      source: 'external_container',
      patch: { source_config: { custom_url: 'https://new.example' } },
      newRevision: false,
    },
    {
      source: 'external_container',
      patch: { source_config: { listener_id: null, listener_config: null } },
      newRevision: false,
    },
  ];

  it.each(cases)('$source $patch -> new revision: $newRevision', async ({ source, patch, newRevision }) => {
    const before = await create(source);
    const response = await client.call<WireDeployment>('PATCH', `/v2/deployments/${before.id}`, {
      body: patch,
    });
    expect(response.status).toBe(200);
    expect(await revisionCount(before.id)).toBe(newRevision ? 2 : 1);
    expect(response.body.latest_revision_id === before.latest_revision_id).toBe(!newRevision);
  });
});

describe('merge semantics', () => {
  it('leaves absent and null fields as they are', async () => {
    const before = await create('repo_host');
    const response = await client.call<WireDeployment>('PATCH', `/v2/deployments/${before.id}`, {
      body: {
        source_config: { build_on_push: true, install_command: null },
        source_revision_config: { graph_config_path: null },
      },
    });
    expect(response.body.source_config).toEqual({ ...before.source_config, build_on_push: true });
    expect(response.body.source_revision_config).toEqual(before.source_revision_config);
    expect(response.body.secrets).toEqual(before.secrets);
  });

  it('replaces secrets when non-empty and keeps them when empty', async () => {
    const before = await create('repo_host');
    const kept = await client.call<WireDeployment>('PATCH', `/v2/deployments/${before.id}`, {
      body: { secrets: [] },
    });
    expect(kept.body.secrets).toEqual([{ name: 'A', value: 'a' }]);
    const replaced = await client.call<WireDeployment>('PATCH', `/v2/deployments/${before.id}`, {
      body: { secrets: [{ name: 'B', value: 'b' }] },
    });
    expect(replaced.body.secrets).toEqual([{ name: 'B', value: 'b' }]);
  });

  it('overwrites resource_spec whole and re-applies defaults', async () => {
    const before = await create('external_container');
    const response = await client.call<WireDeployment>('PATCH', `/v2/deployments/${before.id}`, {
      body: { source_config: { resource_spec: { memory_mb: 512 } } },
    });
    expect(response.body.source_config.resource_spec).toMatchObject({
      cpu: null,
      cpu_limit: null,
      memory_limit_mb: 1024,
    });
  });

  it('records the new revision config on the revision and the deployment', async () => {
    const before = await create('repo_host');
    const response = await client.call<WireDeployment>('PATCH', `/v2/deployments/${before.id}`, {
      body: { source_revision_config: { repo_ref: 'release' } },
    });
    const revision = await client.call<WireRevision>(
      'GET',
      `/v2/deployments/${before.id}/revisions/${response.body.latest_revision_id ?? ''}`,
    );
    expect(revision.body.source_revision_config).toMatchObject({
      repo_ref: 'release',
      graph_config_path: 'graph.json',
    });
    expect(response.body.source_revision_config.repo_ref).toBe('release');
    expect(response.body.source_revision_config.repo_commit_sha).toBe(
      revision.body.source_revision_config.repo_commit_sha,
    );
  });

  it('accepts a resent unchanged immutable value', async () => {
    const before = await create('repo_host');
    const response = await client.call('PATCH', `/v2/deployments/${before.id}`, {
      body: {
        source_config: {
          repo_url: before.source_config.repo_url,
          integration_id: integrationId,
          custom_url: before.source_config.custom_url,
        },
      },
    });
    expect(response.status).toBe(200);
  });
});

describe('400: PATCH rules', () => {
  const otherUuid = '00000000-0000-4000-8000-0000000000aa';
  const cases: {
    name: string;
    source: 'repo_host' | 'external_container';
    patch: () => Record<string, unknown>;
    detail: RegExp;
  }[] = [
    {
      name: 'integration_id',
      source: 'repo_host',
      patch: () => ({ source_config: { integration_id: otherUuid } }),
      detail: /integration_id cannot be changed by PATCH/,
    },
    {
      name: 'repo_url',
      source: 'repo_host',
      patch: () => ({ source_config: { repo_url: 'https://git.example/other' } }),
      detail: /repo_url cannot be changed/,
    },
    {
      name: 'deployment_type',
      source: 'repo_host',
      patch: () => ({ source_config: { deployment_type: 'prod' } }),
      detail: /deployment_type cannot be changed/,
    },
    {
      name: 'listener_id',
      source: 'external_container',
      patch: () => ({ source_config: { listener_id: otherUuid } }),
      detail: /listener_id cannot be changed/,
    },
    {
      name: 'cluster_namespace',
      source: 'external_container',
      patch: () => ({ source_config: { listener_config: { cluster_namespace: 'agents' } } }),
      detail: /cluster_namespace cannot be changed/,
    },
    {
      name: 'custom_url on repo_host',
      source: 'repo_host',
      patch: () => ({ source_config: { custom_url: 'https://mine.example' } }),
      detail: /custom_url does not apply to source repo_host/,
    },
    {
      name: 'image_uri on repo_host',
      source: 'repo_host',
      patch: () => ({ source_revision_config: { image_uri: 'img' } }),
      detail: /image_uri does not apply/,
    },
    {
      name: 'repo_ref on external_container',
      source: 'external_container',
      patch: () => ({ source_revision_config: { repo_ref: 'main' } }),
      detail: /repo_ref does not apply/,
    },
    {
      name: 'build_on_push with a new tag ref',
      source: 'repo_host',
      patch: () => ({
        source_config: { build_on_push: true },
        source_revision_config: { repo_ref: 'refs/tags/v2' },
      }),
      detail: /build_on_push cannot be true/,
    },
    {
      name: 'resource_spec mount naming no volume',
      source: 'external_container',
      patch: () => ({
        source_config: { resource_spec: { volume_mounts: [{ name: 'x', mountPath: '/x' }] } },
      }),
      detail: /does not name a volume/,
    },
  ];

  it.each(cases)('$name', async ({ source, patch, detail }) => {
    const before = await create(source);
    const response = await client.call('PATCH', `/v2/deployments/${before.id}`, { body: patch() });
    expect(response.status).toBe(400);
    expect(DetailError.parse(response.body).detail).toMatch(detail);
    expect(await revisionCount(before.id)).toBe(1);
  });

  it('build_on_push cannot be enabled while the stored ref is a tag', async () => {
    const body = repoHostBody(integrationId, { source_revision_config: { repo_ref: 'refs/tags/v1' } });
    const created = await client.call<WireDeployment>('POST', '/v2/deployments', { body });
    const response = await client.call('PATCH', `/v2/deployments/${created.body.id}`, {
      body: { source_config: { build_on_push: true } },
    });
    expect(response.status).toBe(400);
  });

  it('name and source are not part of the PATCH body and are ignored', async () => {
    const before = await create('repo_host');
    const response = await client.call<WireDeployment>('PATCH', `/v2/deployments/${before.id}`, {
      body: { name: 'renamed', source: 'external_container' },
    });
    expect(response.status).toBe(200);
    expect(response.body.name).toBe(before.name);
  });

  it('422 for a PATCH body of the wrong shape', async () => {
    const before = await create('external_container');
    const response = await client.call('PATCH', `/v2/deployments/${before.id}`, {
      body: { source_config: { resource_spec: { cpu: 99 } } },
    });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({
      detail: [{ loc: ['body', 'source_config', 'resource_spec', 'cpu'], type: 'less_than_equal' }],
    });
  });

  it('a listener seeded later is still not a change of listener_id', async () => {
    const seeded = await client.call<{ id: string }>('POST', `/_emulator/tenants/${tenantId}/listeners`, {
      body: { compute_type: 'cluster' },
    });
    const before = await create('external_container');
    const response = await client.call('PATCH', `/v2/deployments/${before.id}`, {
      body: { source_config: { listener_id: seeded.body.id } },
    });
    expect(response.status).toBe(400);
  });
});
