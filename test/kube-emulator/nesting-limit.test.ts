// A Secret posted with an unknown field nested 5,000 arrays deep was stored although the
// POST answered 500, and from then on every GET of it and every cluster-wide LIST of Secrets
// answered 500. Every write verb and body format now refuses a body nested deeper than
// MAX_JSON_DEPTH with a 400 BadRequest before anything is stored, and so does a write whose
// result would nest deeper (a JSON patch that adds a deep value at a deep path). The YAML of
// server-side apply is also bounded in how far its aliases expand, and a JSON patch in its
// operations and in what its copies add, as on the real server.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/sim/http/json-nesting.js';
import { FIXTURES, startTestEmulator, type TestEmulator } from './helpers.js';

const SECRETS = '/api/v1/namespaces/default/secrets';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';
const DEEP = 5_000;
const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const APPLY = 'application/apply-patch+yaml';

let env: TestEmulator;

/** `levels` arrays, one inside the other. */
function nested(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

async function send(
  method: string,
  path: string,
  body?: string,
  contentType = 'application/json',
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${env.emulator.url}${path}`, {
    method,
    headers: { 'content-type': contentType, accept: 'application/json' },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** What must not change when a write is refused: the object and the store's revision. */
async function snapshot(): Promise<unknown[]> {
  const secrets = await send('GET', '/api/v1/secrets');
  const widgets = await send('GET', '/apis/example.com/v1/widgets');
  expect(secrets.status).toBe(200);
  expect(widgets.status).toBe(200);
  return [secrets.body, widgets.body];
}

beforeAll(async () => {
  env = await startTestEmulator();
  const crd = yaml.load(await readFile(join(FIXTURES, 'widget-crd.yaml'), 'utf8')) as {
    spec: {
      versions: { schema: { openAPIV3Schema: { properties: Record<string, Record<string, unknown>> } } }[];
    };
  };
  const properties = crd.spec.versions[0]?.schema.openAPIV3Schema.properties ?? {};
  // A field that keeps whatever it is given, so that nesting is all that can refuse a value.
  const spec = properties['spec'] as { properties: Record<string, unknown> };
  spec.properties['blob'] = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  properties['status'] = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  expect(
    (await send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', JSON.stringify(crd)))
      .status,
  ).toBe(201);
  // The CRD's resource is served from the write that creates it.
  expect((await send('GET', WIDGETS)).status).toBe(200);
  expect(
    (await send('POST', SECRETS, JSON.stringify({ metadata: { name: 'base' }, stringData: { a: 'b' } })))
      .status,
  ).toBe(201);
  const widget = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'base' },
    spec: { size: 1, blob: {} },
  };
  expect((await send('POST', WIDGETS, JSON.stringify(widget))).status).toBe(201);
});
afterAll(async () => {
  await env.stop();
});

function expectDepthRefusal(
  response: { status: number; body: Record<string, unknown> },
  label: string,
): void {
  expect(response.status, label).toBe(400);
  expect(response.body, label).toMatchObject({
    kind: 'Status',
    status: 'Failure',
    reason: 'BadRequest',
    code: 400,
  });
  expect(String(response.body['message']), label).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels`);
}

describe(`a body nested ${DEEP} levels deep`, () => {
  const deep = nested(DEEP);
  const secret = (name: string, extra: string): string =>
    `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"${name}"},${extra}}`;
  const widget = (name: string, spec: string, extra = ''): string =>
    `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"${name}"},"spec":${spec}${extra}}`;

  const writes: [string, string, string, string, string?][] = [
    ['POST a Secret, unknown field', 'POST', SECRETS, secret('deep', `"bogus":${deep}`)],
    ['POST a Secret, known field', 'POST', SECRETS, secret('deep', `"data":{"k":${deep}}`)],
    ['PUT a Secret', 'PUT', `${SECRETS}/base`, secret('base', `"bogus":${deep}`)],
    ['merge patch of a Secret', 'PATCH', `${SECRETS}/base`, `{"bogus":${deep}}`, MERGE],
    [
      'strategic merge patch of a Secret',
      'PATCH',
      `${SECRETS}/base`,
      `{"metadata":{"labels":${deep}}}`,
      STRATEGIC,
    ],
    [
      'JSON patch of a Secret',
      'PATCH',
      `${SECRETS}/base`,
      `[{"op":"add","path":"/bogus","value":${deep}}]`,
      JSON_PATCH,
    ],
    [
      'apply (JSON) of a Secret',
      'PATCH',
      `${SECRETS}/base?fieldManager=t`,
      secret('base', `"bogus":${deep}`),
      APPLY,
    ],
    [
      'apply creating a Secret',
      'PATCH',
      `${SECRETS}/fresh?fieldManager=t`,
      secret('fresh', `"data":{"k":${deep}}`),
      APPLY,
    ],
    ['DELETE with deep options', 'DELETE', `${SECRETS}/base`, `{"preconditions":${deep}}`],
    [
      'POST a custom resource, unknown field',
      'POST',
      WIDGETS,
      widget('deep', '{"size":1}', `,"bogus":${deep}`),
    ],
    [
      'POST a custom resource, known field',
      'POST',
      WIDGETS,
      widget('deep', `{"size":1,"blob":{"x":${deep}}}`),
    ],
    ['PUT a custom resource', 'PUT', `${WIDGETS}/base`, widget('base', `{"size":1,"blob":{"x":${deep}}}`)],
    [
      'merge patch of a custom resource',
      'PATCH',
      `${WIDGETS}/base`,
      `{"spec":{"blob":{"x":${deep}}}}`,
      MERGE,
    ],
    [
      'JSON patch of a custom resource',
      'PATCH',
      `${WIDGETS}/base`,
      `[{"op":"add","path":"/spec/blob/x","value":${deep}}]`,
      JSON_PATCH,
    ],
    [
      'apply of a custom resource',
      'PATCH',
      `${WIDGETS}/base?fieldManager=t`,
      widget('base', `{"size":1,"blob":{"x":${deep}}}`),
      APPLY,
    ],
    [
      'PUT of the status subresource',
      'PUT',
      `${WIDGETS}/base/status`,
      widget('base', '{"size":1}', `,"status":{"x":${deep}}`),
    ],
    [
      'merge patch of the status subresource',
      'PATCH',
      `${WIDGETS}/base/status`,
      `{"status":{"x":${deep}}}`,
      MERGE,
    ],
    [
      'apply to the status subresource',
      'PATCH',
      `${WIDGETS}/base/status?fieldManager=t`,
      widget('base', '{"size":1}', `,"status":{"x":${deep}}`),
      APPLY,
    ],
  ];

  it.each(writes)(
    '%s: 400 BadRequest, nothing stored, GET and LIST still 200',
    async (label, method, path, body, contentType) => {
      const before = await snapshot();
      expectDepthRefusal(await send(method, path, body, contentType), label);
      expect(await snapshot(), label).toEqual(before);
      expect((await send('GET', `${SECRETS}/base`)).status).toBe(200);
      expect((await send('GET', `${WIDGETS}/base`)).status).toBe(200);
      expect((await send('GET', `${SECRETS}/deep`)).status).toBe(404);
      expect((await send('GET', `${SECRETS}/fresh`)).status).toBe(404);
      expect((await send('GET', `${WIDGETS}/deep`)).status).toBe(404);
    },
  );

  it('a strategic merge patch of a custom resource is still the 415 it always was', async () => {
    const response = await send('PATCH', `${WIDGETS}/base`, `{"spec":{"blob":${deep}}}`, STRATEGIC);
    expect(response.status).toBe(415);
  });

  it('apply in YAML block style is refused the same way', async () => {
    const before = await snapshot();
    // `- - - ... x`: each dash opens a sequence inside the one before, on one line.
    const body = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: base\nbogus:\n  ${'- '.repeat(DEEP)}x\n`;
    expectDepthRefusal(await send('PATCH', `${SECRETS}/base?fieldManager=t`, body, APPLY), 'block YAML');
    expect(await snapshot()).toEqual(before);
  });
});

describe('the limit itself', () => {
  /** A Widget whose whole body nests exactly `depth` levels (root, spec and blob are three). */
  const widgetOfDepth = (name: string, depth: number): string =>
    `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"${name}"},"spec":{"size":1,"blob":{"x":${nested(depth - 3)}}}}`;

  it(`accepts a body ${MAX_JSON_DEPTH} levels deep, stores it, and answers it`, async () => {
    expect((await send('POST', WIDGETS, widgetOfDepth('at-limit', MAX_JSON_DEPTH))).status).toBe(201);
    expect((await send('GET', `${WIDGETS}/at-limit`)).status).toBe(200);
    expect((await send('GET', '/apis/example.com/v1/widgets')).status).toBe(200);
    expect((await send('DELETE', `${WIDGETS}/at-limit`)).status).toBe(200);
  });

  it(`refuses one level more`, async () => {
    expectDepthRefusal(
      await send('POST', WIDGETS, widgetOfDepth('past-limit', MAX_JSON_DEPTH + 1)),
      'one more',
    );
    expect((await send('GET', `${WIDGETS}/past-limit`)).status).toBe(404);
  });

  it('refuses a JSON patch whose every value is shallow but whose result is not', async () => {
    const before = await snapshot();
    // Each value is half the limit deep, added at the end of the one before.
    const half = Math.ceil(MAX_JSON_DEPTH / 2);
    const deeper = `/spec/blob/x${'/0'.repeat(half - 1)}`;
    const patch = [
      { op: 'add', path: '/spec/blob/x', value: JSON.parse(nested(half)) as unknown },
      { op: 'add', path: `${deeper}/0`, value: JSON.parse(nested(half)) as unknown },
    ];
    const response = await send('PATCH', `${WIDGETS}/base`, JSON.stringify(patch), JSON_PATCH);
    expect(response.status).toBe(400);
    expect(String(response.body['message'])).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    expect(await snapshot()).toEqual(before);
  });
});

describe('amplification', () => {
  it('refuses YAML whose aliases expand past what any body of the size limit could hold', async () => {
    const before = await snapshot();
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let level = 1; level < 9; level++) {
      const previous = String.fromCharCode(96 + level);
      const name = String.fromCharCode(97 + level);
      levels.push(`${name}: &${name} [${new Array<string>(10).fill(`*${previous}`).join(',')}]`);
    }
    const body = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: base\nbogus:\n${levels.map((l) => `  ${l}`).join('\n')}\n`;
    const started = Date.now();
    const response = await send('PATCH', `${SECRETS}/base?fieldManager=t`, body, APPLY);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    expect(String(response.body['message'])).toContain('aliases');
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a JSON patch of more than 10,000 operations with 413, as the real server does', async () => {
    const before = await snapshot();
    const patch = new Array(10_001).fill({ op: 'test', path: '/spec/size', value: 1 });
    const response = await send('PATCH', `${WIDGETS}/base`, JSON.stringify(patch), JSON_PATCH);
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ kind: 'Status', reason: 'RequestEntityTooLarge' });
    expect(String(response.body['message'])).toContain(
      'The allowed maximum operations in a JSON patch is 10000, got 10001',
    );
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a JSON patch whose copies add more than the body size limit, as the real server does', async () => {
    const before = await snapshot();
    // Each copy doubles spec.blob: 40 of them would be a trillion times the original.
    const patch = [{ op: 'add', path: '/spec/blob/seed', value: 'x'.repeat(1_000) }];
    for (let i = 0; i < 40; i++)
      patch.push({ op: 'copy', from: '/spec/blob', path: `/spec/blob/c${i}` } as never);
    const response = await send('PATCH', `${WIDGETS}/base`, JSON.stringify(patch), JSON_PATCH);
    expect(response.status).toBe(422);
    expect(String(response.body['message'])).toContain('the accumulated size increase of copy');
    expect(await snapshot()).toEqual(before);
  });
});
