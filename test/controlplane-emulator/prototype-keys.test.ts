// An audit of the emulator's JSON handling: `__proto__`, `constructor` and `prototype`
// keys in create and PATCH bodies (top level and nested) are unknown fields, which the
// service ignores; they must never reach Object.prototype nor change the deployment.
// The bodies are raw text: a JS object literal with `__proto__` would set the literal's
// prototype instead of sending the key.
import { beforeAll, describe, expect, it } from 'vitest';
import { containerBody, startEmulator, type EmulatorClient, type WireDeployment } from './helpers.js';

let client: EmulatorClient;
let listenerId: string;

beforeAll(async () => {
  client = await startEmulator();
  ({ listenerId } = await client.defaults());
});

const POISON =
  '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "prototype": {"polluted": "yes"}}';

function withPoison(json: string): string {
  // Adds the three keys to every object of the body.
  return json
    .replace(
      /\{/g,
      `{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "prototype": {"polluted": "yes"}, `,
    )
    .replace(/, \}/g, '}');
}

function expectPrototypeClean(): void {
  expect(Object.prototype).not.toHaveProperty('polluted');
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('polluted');
}

describe('prototype keys in request bodies', () => {
  it('a create with them in every object makes the same deployment as without', async () => {
    const body = containerBody(listenerId, {
      secrets: [{ name: 'S', value: 'v' }],
      source_config: { listener_id: listenerId, listener_config: { cluster_namespace: 'default' } },
    });
    const response = await client.call<WireDeployment>('POST', '/v2/deployments', {
      rawBody: withPoison(JSON.stringify(body)),
    });
    expect(response.status).toBe(201);
    expectPrototypeClean();
    expect(response.body.name).toBe(body.name);
    expect(response.body.secrets).toEqual([{ name: 'S', value: 'v' }]);
    expect(response.body.source_config.listener_config).toEqual({ cluster_namespace: 'default' });
    expect(Object.keys(response.body)).not.toContain('polluted');
  });

  it('a PATCH made only of them changes nothing; nested in a field it changes only that field', async () => {
    const created = await client.call<WireDeployment>('POST', '/v2/deployments', {
      body: containerBody(listenerId),
    });
    const id = created.body.id;
    const before = (await client.call<WireDeployment>('GET', `/v2/deployments/${id}`)).body;

    const onlyPoison = await client.call('PATCH', `/v2/deployments/${id}`, { rawBody: POISON });
    expect(onlyPoison.status).toBe(200);
    expectPrototypeClean();
    // updated_at moves on any PATCH, as in the service; every other field stays.
    const after = (await client.call<WireDeployment>('GET', `/v2/deployments/${id}`)).body;
    expect({ ...after, updated_at: before.updated_at }).toEqual(before);

    const nested = await client.call<WireDeployment>('PATCH', `/v2/deployments/${id}`, {
      rawBody: withPoison(
        JSON.stringify({ source_revision_config: { image_uri: 'registry.example/agent:2' } }),
      ),
    });
    expect(nested.status).toBe(200);
    expectPrototypeClean();
    expect(nested.body.source_revision_config.image_uri).toBe('registry.example/agent:2');
    expect(nested.body.source_config).toEqual(before.source_config);
    expect(nested.body.secrets).toEqual(before.secrets);
  });
});
