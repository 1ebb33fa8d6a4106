// A body nested deeper than MAX_JSON_DEPTH once went into the store (free-form fields such as
// a volume's configMap keep whatever they get), its answer could not be serialized, and every
// later read of the deployment and every list holding it answered 500. Now such a body is the
// FastAPI-style 422 json_invalid the service gives malformed JSON, naming the limit, with
// nothing stored; a body exactly at the limit is still served.
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/sim/http/json-nesting.js';
import { containerBody, startEmulator, type EmulatorClient, type WireDeployment } from './helpers.js';

const DEEP = 5_000;

let client: EmulatorClient;
let listenerId: string;

beforeAll(async () => {
  client = await startEmulator();
  ({ listenerId } = await client.defaults());
});

function nested(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

/** A create body whose volume's configMap (six levels down) holds `value` under `x`. */
function withConfigMap(name: string, value: string): string {
  const body = containerBody(listenerId, { name });
  const text = JSON.stringify({
    ...body,
    source_config: {
      ...body.source_config,
      resource_spec: { volumes: [{ name: 'v', configMap: { x: 0 } }] },
    },
  });
  return text.replace('{"x":0}', `{"x":${value}}`);
}

function expectNestingRefusal(response: { status: number; body: unknown }, label: string): void {
  expect(response.status, label).toBe(422);
  const detail = (response.body as { detail: { loc: unknown[]; msg: string; type: string }[] }).detail;
  expect(detail, label).toHaveLength(1);
  expect(detail[0]?.type, label).toBe('json_invalid');
  expect(detail[0]?.loc[0], label).toBe('body');
  expect(typeof detail[0]?.loc[1], label).toBe('number');
  expect(detail[0]?.msg, label).toBe(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
}

async function deploymentNames(): Promise<string[]> {
  const list = await client.call<{ resources: WireDeployment[] }>('GET', '/v2/deployments?limit=100');
  expect(list.status).toBe(200);
  return list.body.resources.map((d) => d.name);
}

describe(`a body nested ${DEEP} levels deep`, () => {
  it('to create, in a free-form field or an unknown one: 422, nothing stored, lists still 200', async () => {
    const before = await deploymentNames();
    expectNestingRefusal(
      await client.call('POST', '/v2/deployments', { rawBody: withConfigMap('deep-known', nested(DEEP)) }),
      'free-form field',
    );
    const unknownField = JSON.stringify(containerBody(listenerId, { name: 'deep-unknown' })).replace(
      /^\{/,
      `{"bogus":${nested(DEEP)},`,
    );
    expectNestingRefusal(
      await client.call('POST', '/v2/deployments', { rawBody: unknownField }),
      'unknown field',
    );
    expect(await deploymentNames()).toEqual(before);
  });

  it('to PATCH: 422, the deployment unchanged', async () => {
    const created = await client.call<WireDeployment>('POST', '/v2/deployments', {
      body: containerBody(listenerId),
    });
    expect(created.status).toBe(201);
    const path = `/v2/deployments/${created.body.id}`;
    const patch = `{"source_config":{"resource_spec":{"volumes":[{"name":"v","configMap":{"x":${nested(DEEP)}}}]}}}`;
    expectNestingRefusal(await client.call('PATCH', path, { rawBody: patch }), 'patch');
    const after = await client.call<WireDeployment>('GET', path);
    expect(after.status).toBe(200);
    expect(after.body.source_config.resource_spec).toEqual(created.body.source_config.resource_spec);
  });

  it('to the admin API: 422 too', async () => {
    expectNestingRefusal(
      await client.call('POST', '/_emulator/faults', { rawBody: `{"status":503,"route":${nested(DEEP)}}` }),
      'faults',
    );
    expect((await client.call('GET', '/_emulator/stats')).status).toBe(200);
  });
});

describe('the limit itself', () => {
  it(`stores and answers a body ${MAX_JSON_DEPTH} levels deep, and refuses one more`, async () => {
    // The configMap's `x` sits six levels down: body, source_config, resource_spec, volumes, the volume, configMap.
    const atLimit = await client.call<WireDeployment>('POST', '/v2/deployments', {
      rawBody: withConfigMap('at-limit', nested(MAX_JSON_DEPTH - 6)),
    });
    expect(atLimit.status).toBe(201);
    expect((await client.call('GET', `/v2/deployments/${atLimit.body.id}`)).status).toBe(200);
    expectNestingRefusal(
      await client.call('POST', '/v2/deployments', {
        rawBody: withConfigMap('past-limit', nested(MAX_JSON_DEPTH - 5)),
      }),
      'one more',
    );
    expect(await deploymentNames()).toContain('at-limit');
  });
});
