// CPU bounds are checked on the raw value, then stored rounded to one decimal; unset
// limits default to 2x their request and queue_* fields to their base fields.
import { beforeAll, describe, expect, it } from 'vitest';
import { applyResourceSpecDefaults, roundCpu } from '../../src/sim/controlplane/resource-spec-defaults.js';
import { containerBody, startEmulator, type EmulatorClient, type WireDeployment } from './helpers.js';

let client: EmulatorClient;
let listenerId: string;

beforeAll(async () => {
  client = await startEmulator();
  ({ listenerId } = await client.defaults());
});

async function stored(resourceSpec: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await client.call<WireDeployment>('POST', '/v2/deployments', {
    body: containerBody(listenerId, {
      source_config: { listener_id: listenerId, resource_spec: resourceSpec },
    }),
  });
  expect(response.status).toBe(201);
  const spec = response.body.source_config.resource_spec;
  if (!spec) throw new Error('no resource_spec stored');
  return spec;
}

describe('cpu bounds and rounding', () => {
  it.each([
    { given: { cpu: 0.1 }, field: 'cpu', stored: 0.1 },
    { given: { cpu: 8 }, field: 'cpu', stored: 8 },
    { given: { cpu: 0.14 }, field: 'cpu', stored: 0.1 },
    { given: { cpu: 0.15 }, field: 'cpu', stored: 0.2 },
    { given: { cpu: 1.26 }, field: 'cpu', stored: 1.3 },
    { given: { cpu: 7.96 }, field: 'cpu', stored: 8 },
    { given: { cpu_limit: 15.99 }, field: 'cpu_limit', stored: 16 },
    { given: { queue_cpu: 0.349 }, field: 'queue_cpu', stored: 0.3 },
    { given: { cache_cpu: 2.25 }, field: 'cache_cpu', stored: 2.3 },
    { given: { db_cpu: 0.04 }, field: 'db_cpu', stored: 0 },
  ])('$given stores $field = $stored', async ({ given, field, stored: expected }) => {
    expect((await stored(given))[field]).toBe(expected);
  });

  it.each([
    { cpu: 0.09 },
    { cpu: 8.04 },
    { cpu_limit: 0.09 },
    { cpu_limit: 16.01 },
    { cache_cpu_limit: 16.04 },
  ])('raw value %o outside the bounds is 422 even though it would round inside', async (resourceSpec) => {
    const response = await client.call('POST', '/v2/deployments', {
      body: containerBody(listenerId, {
        source_config: { listener_id: listenerId, resource_spec: resourceSpec },
      }),
    });
    expect(response.status).toBe(422);
  });
});

describe('replica counts', () => {
  it.each(['min_scale', 'max_scale', 'queue_min_scale', 'queue_max_scale'])(
    'a negative %s is refused with a 400 naming it (a number of replicas cannot be below 0)',
    async (field) => {
      const response = await client.call<{ detail: string }>('POST', '/v2/deployments', {
        body: containerBody(listenerId, {
          source_config: { listener_id: listenerId, resource_spec: { [field]: -1 } },
        }),
      });
      expect(response.status).toBe(400);
      expect(response.body.detail).toBe(`source_config.resource_spec.${field} (-1) must not be negative`);
    },
  );

  it('zero replicas is a valid minimum', async () => {
    expect(await stored({ min_scale: 0, max_scale: 0 })).toMatchObject({ min_scale: 0, queue_min_scale: 0 });
  });
});

describe('defaults', () => {
  it('fills limits with 2x the request and queue_* from their base fields', async () => {
    const spec = await stored({
      min_scale: 1,
      max_scale: 3,
      cpu: 1.5,
      memory_mb: 1024,
      cache_cpu: 0.5,
      db_cpu: 2,
      db_memory_mb: 256,
    });
    expect(spec).toMatchObject({
      cpu_limit: 3,
      memory_limit_mb: 2048,
      queue_min_scale: 1,
      queue_max_scale: 3,
      queue_cpu: 1.5,
      queue_cpu_limit: 3,
      queue_memory_mb: 1024,
      queue_memory_limit_mb: 2048,
      cache_cpu_limit: 1,
      db_cpu_limit: 4,
      db_memory_limit_mb: 512,
    });
  });

  it('keeps limits and queue values that were set', async () => {
    const spec = await stored({
      cpu: 1,
      cpu_limit: 1.5,
      queue_cpu: 0.5,
      memory_mb: 100,
      memory_limit_mb: 150,
    });
    expect(spec).toMatchObject({
      cpu_limit: 1.5,
      queue_cpu: 0.5,
      queue_cpu_limit: 1,
      memory_limit_mb: 150,
      queue_memory_limit_mb: 200,
    });
  });

  it('derives defaults from the rounded request', async () => {
    const spec = await stored({ cpu: 0.26 });
    expect(spec).toMatchObject({ cpu: 0.3, cpu_limit: 0.6, queue_cpu: 0.3, queue_cpu_limit: 0.6 });
  });

  it('leaves unset fields null and shows every field of the spec', async () => {
    const spec = await stored({ labels: { team: 'a' } });
    expect(spec.cpu).toBeNull();
    expect(spec.cpu_limit).toBeNull();
    expect(spec.labels).toEqual({ team: 'a' });
    expect(Object.keys(spec)).toContain('orchestrator_cpu');
    expect(Object.keys(spec)).toContain('db_max_connections');
  });

  it('passes Kubernetes-shaped objects through unchanged', async () => {
    const volumes = [{ name: 'data', emptyDir: { medium: 'Memory' } }];
    const sidecars = [
      {
        name: 'proxy',
        image: 'envoy:1',
        restartPolicy: 'Always',
        env: [{ name: 'PORT', value: '8080' }],
        volumeMounts: [{ name: 'data', mountPath: '/data', readOnly: true }],
      },
    ];
    const spec = await stored({ volumes, sidecars, volume_mounts: [{ name: 'data', mountPath: '/d' }] });
    expect(spec.volumes).toEqual(volumes);
    expect(spec.sidecars).toEqual(sidecars);
  });
});

describe('pure helpers', () => {
  it('rounds half up at one decimal without binary surprises', () => {
    expect([0.05, 0.15, 0.25, 1.45, 2.35].map(roundCpu)).toEqual([0.1, 0.2, 0.3, 1.5, 2.4]);
  });

  it('doubles a defaulted queue_cpu_limit from the copied queue_cpu', () => {
    expect(applyResourceSpecDefaults({ cpu: 4 })).toMatchObject({
      cpu_limit: 8,
      queue_cpu: 4,
      queue_cpu_limit: 8,
    });
  });
});
