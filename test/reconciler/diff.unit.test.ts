import { describe, expect, it } from 'vitest';
import type { Deployment, DeploymentCreateRequest } from '../../src/controlplane/models/index.js';
import { diffDeployment, diffDeploymentRemembered } from '../../src/reconcilers/agentdeployment/diff.js';
import { normalizeResourceSpec } from '../../src/reconcilers/agentdeployment/normalize-resource-spec.js';

const LISTENER = '5b0c6c1e-3d8a-4a4f-9f3e-1c2b3a4d5e6f';

function desiredContainer(overrides: Partial<DeploymentCreateRequest> = {}): DeploymentCreateRequest {
  return {
    name: 'agent',
    source: 'external_container',
    source_config: {
      listener_id: LISTENER,
      listener_config: { cluster_namespace: 'agents' },
      resource_spec: {
        cpu: 0.5,
        memory_mb: 512,
        volumes: [{ name: 'cache', emptyDir: {} }],
        volume_mounts: [{ name: 'cache', mountPath: '/cache' }],
      },
    },
    source_revision_config: { image_uri: 'registry.example/agent:1' },
    secrets: [{ name: 'TOKEN', value: 's3cret' }],
    ...overrides,
  };
}

/** What the server stores for `desired`: defaults applied, nulls where unset, as echoed back. */
function observedFrom(desired: DeploymentCreateRequest): Deployment {
  const spec = desired.source_config.resource_spec;
  return {
    name: desired.name,
    source: desired.source,
    source_config: {
      ...desired.source_config,
      build_on_push: null,
      custom_url: null,
      resource_spec: spec
        ? {
            ...normalizeResourceSpec(spec),
            volume_mounts: spec.volume_mounts?.map((mount) => ({ ...mount, subPath: null, readOnly: null })),
          }
        : null,
    },
    source_revision_config: { ...desired.source_revision_config, repo_commit_sha: null },
    secrets: [...desired.secrets].reverse(),
    id: '0d6c1f0e-8b1a-4c55-a7f1-1b2c3d4e5f60',
    tenant_id: '7e0f2a4c-1111-4a2b-8c3d-9e8f7a6b5c4d',
    created_at: '2026-11-21T00:00:00Z',
    updated_at: '2026-11-21T00:00:00Z',
    status: 'READY',
    latest_revision_id: 'a1b2c3d4-0000-4000-8000-000000000001',
    active_revision_id: 'a1b2c3d4-0000-4000-8000-000000000001',
  };
}

describe('diffDeployment', () => {
  it('finds nothing to do when the server merely applied its defaults and echoed nulls', () => {
    const desired = desiredContainer();
    const diff = diffDeployment(desired, observedFrom(desired));
    expect(diff).toEqual({
      patch: null,
      createsRevision: false,
      changedFields: [],
      immutableChanges: [],
      uncleared: [],
    });
  });

  const cases: Array<{
    name: string;
    change: (d: DeploymentCreateRequest) => void;
    fields: string[];
    revision: boolean;
  }> = [
    {
      name: 'a new image',
      change: (d) => (d.source_revision_config.image_uri = 'registry.example/agent:2'),
      fields: ['source_revision_config.image_uri'],
      revision: true,
    },
    {
      name: 'a rotated secret value',
      change: (d) => (d.secrets = [{ name: 'TOKEN', value: 'rotated' }]),
      fields: ['secrets'],
      revision: true,
    },
    {
      name: 'an added secret',
      change: (d) => d.secrets.push({ name: 'OTHER', value: 'x' }),
      fields: ['secrets'],
      revision: true,
    },
    {
      name: 'more cpu',
      change: (d) => (d.source_config.resource_spec = { ...d.source_config.resource_spec, cpu: 1 }),
      fields: ['source_config.resource_spec'],
      revision: true,
    },
    {
      name: 'an explicit limit different from the default',
      change: (d) => (d.source_config.resource_spec = { ...d.source_config.resource_spec, cpu_limit: 3 }),
      fields: ['source_config.resource_spec'],
      revision: true,
    },
    {
      name: 'a sidecar added',
      change: (d) =>
        (d.source_config.resource_spec = {
          ...d.source_config.resource_spec,
          sidecars: [{ name: 'proxy', image: 'envoy:1', restartPolicy: 'Always' }],
        }),
      fields: ['source_config.resource_spec'],
      revision: true,
    },
    {
      name: 'a custom url',
      change: (d) => (d.source_config.custom_url = 'https://agent.example'),
      fields: ['source_config.custom_url'],
      revision: false,
    },
    {
      name: 'a build command',
      change: (d) => (d.source_config.build_command = 'npm run build'),
      fields: ['source_config.build_command'],
      revision: false,
    },
  ];

  it.each(cases)('patches only what changed: $name', ({ change, fields, revision }) => {
    const before = desiredContainer();
    const observed = observedFrom(before);
    const after = desiredContainer();
    change(after);
    const diff = diffDeployment(after, observed);
    expect(diff.changedFields).toEqual(fields);
    expect(diff.createsRevision).toBe(revision);
    expect(diff.immutableChanges).toEqual([]);
    expect(diff.patch).not.toBeNull();
    // The patch carries the changed parts and nothing that would create a revision needlessly.
    if (!fields.includes('secrets')) expect(diff.patch?.secrets).toBeUndefined();
    if (!fields.some((f) => f.startsWith('source_revision_config')))
      expect(diff.patch?.source_revision_config).toBeUndefined();
  });

  it('treats rounding as no change: 0.54 cpu is stored as 0.5', () => {
    const desired = desiredContainer();
    const observed = observedFrom(desired);
    desired.source_config.resource_spec = { ...desired.source_config.resource_spec, cpu: 0.54 };
    expect(diffDeployment(desired, observed).patch).toBeNull();
  });

  it('sends the whole resource spec, volumes untouched, because a non-null resource_spec overwrites', () => {
    const desired = desiredContainer();
    const observed = observedFrom(desired);
    desired.source_config.resource_spec = { ...desired.source_config.resource_spec, memory_mb: 1024 };
    const patch = diffDeployment(desired, observed).patch;
    expect(patch?.source_config?.resource_spec).toBe(desired.source_config.resource_spec);
    expect(patch?.source_config?.resource_spec?.volumes).toBe(desired.source_config.resource_spec?.volumes);
  });

  it('reports fields that PATCH cannot change instead of patching them', () => {
    const desired = desiredContainer();
    const observed = observedFrom(desired);
    desired.source_config.listener_id = '11111111-2222-4333-8444-555555555555';
    desired.source_config.listener_config = { cluster_namespace: 'other' };
    const diff = diffDeployment(desired, observed);
    expect(diff.immutableChanges).toEqual([
      'source_config.listener_id',
      'source_config.listener_config.cluster_namespace',
    ]);
    expect(diff.patch).toBeNull();
  });

  it('does not try to clear what the API cannot clear: removed fields and an emptied secret list', () => {
    const desired = desiredContainer();
    const observed = observedFrom(desired);
    observed.source_config.build_command = 'make';
    desired.secrets = [];
    const diff = diffDeployment(desired, observed);
    expect(diff.patch).toBeNull();
    // ... but says which of them it cannot clear, for a Warning event.
    expect(diff.uncleared).toEqual(['secrets']);
  });

  it('sends a resource spec without a removed sidecar whole, so the sidecar disappears', () => {
    const desired = desiredContainer();
    desired.source_config.resource_spec = {
      ...desired.source_config.resource_spec,
      sidecars: [{ name: 'proxy', image: 'envoyproxy/envoy:v1.31', restartPolicy: 'Always' }],
    };
    const observed = observedFrom(desired);
    delete desired.source_config.resource_spec.sidecars;
    const diff = diffDeployment(desired, observed);
    expect(diff.changedFields).toEqual(['source_config.resource_spec']);
    expect(diff.patch?.source_config?.resource_spec?.sidecars).toBeUndefined();
    expect(diff.createsRevision).toBe(true);
  });

  it('ignores the custom_url the server sets for repo_host', () => {
    const desired: DeploymentCreateRequest = {
      name: 'graph',
      source: 'repo_host',
      source_config: {
        repo_url: 'https://git.example/a.git',
        deployment_type: 'dev',
        custom_url: 'https://mine',
      },
      source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
      secrets: [],
    };
    const observed = observedFrom(desired);
    observed.source_config.custom_url = 'https://graph-1234.agents.example';
    expect(diffDeployment(desired, observed).patch).toBeNull();
  });

  it('never puts a secret value in the changed field list', () => {
    const desired = desiredContainer();
    const observed = observedFrom(desired);
    desired.secrets = [{ name: 'TOKEN', value: 'super-secret-value' }];
    expect(JSON.stringify(diffDeployment(desired, observed).changedFields)).not.toContain(
      'super-secret-value',
    );
  });
});

describe('normalizeResourceSpec', () => {
  it.each([
    [{ cpu: 0.25 }, { cpu: 0.3, cpu_limit: 0.6, queue_cpu: 0.3, queue_cpu_limit: 0.6 }],
    [
      { cpu: 1, cpu_limit: 1.5 },
      { cpu: 1, cpu_limit: 1.5, queue_cpu: 1, queue_cpu_limit: 2 },
    ],
    [
      { memory_mb: 256 },
      { memory_mb: 256, memory_limit_mb: 512, queue_memory_mb: 256, queue_memory_limit_mb: 512 },
    ],
    [
      { min_scale: 1, max_scale: 3 },
      { min_scale: 1, max_scale: 3, queue_min_scale: 1, queue_max_scale: 3 },
    ],
    [
      { cache_cpu: 0.5, db_memory_mb: 100 },
      { cache_cpu: 0.5, cache_cpu_limit: 1, db_memory_mb: 100, db_memory_limit_mb: 200 },
    ],
  ])('applies the documented defaults to %j', (input, expected) => {
    expect(normalizeResourceSpec(input)).toEqual(expected);
  });
});

describe('diffDeploymentRemembered', () => {
  it('answers the same inputs from memory, and every settled deployment with one shared answer', () => {
    const desired = desiredContainer();
    const observed = observedFrom(desired);
    const first = diffDeploymentRemembered(desired, observed);
    expect(first.patch).toBeNull();
    expect(diffDeploymentRemembered(desired, observed)).toBe(first);
    const other = desiredContainer({ name: 'other' });
    expect(diffDeploymentRemembered(other, observedFrom(other))).toBe(first);
    expect(Object.isFrozen(first.changedFields)).toBe(true);
  });

  it('computes afresh for another desired request against the same deployment', () => {
    const desired = desiredContainer();
    const observed = observedFrom(desired);
    expect(diffDeploymentRemembered(desired, observed).patch).toBeNull();
    const changed = desiredContainer({ source_revision_config: { image_uri: 'registry.example/agent:2' } });
    const diff = diffDeploymentRemembered(changed, observed);
    expect(diff.patch).toEqual({ source_revision_config: { image_uri: 'registry.example/agent:2' } });
    expect(diff.createsRevision).toBe(true);
    // And back: the first request is compared again, not answered with the second's diff.
    expect(diffDeploymentRemembered(desired, observed).patch).toBeNull();
  });
});
