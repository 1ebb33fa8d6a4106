// The attack of issue 16: a JSON Patch path `/__proto__/...` once walked into
// Object.prototype and polluted the whole process (every later create failed, and a forged
// `finalizers` made new objects undeletable). Every route that merges user JSON is tried
// here with `__proto__`, `constructor` and `prototype`, as keys and as patch path
// segments: each must answer 400 naming the key, leave Object.prototype untouched and the
// object unchanged. Bodies are raw text: a JS literal's `__proto__` would not be sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from './helpers.js';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const FORBIDDEN = ['__proto__', 'constructor', 'prototype'] as const;

let env: TestEmulator;

beforeAll(async () => {
  env = await startTestEmulator();
  const created = await send('POST', CONFIGMAPS, JSON.stringify(configMap('target')));
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await env.stop();
});

function configMap(name: string): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'x' } }, data: { a: '1' } };
}

async function send(
  method: string,
  path: string,
  body: string,
  contentType = 'application/json',
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${env.emulator.url}${path}`, {
    method,
    headers: { 'content-type': contentType, accept: 'application/json' },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function current(): Promise<Record<string, unknown>> {
  const response = await fetch(`${env.emulator.url}${CONFIGMAPS}/target`);
  return (await response.json()) as Record<string, unknown>;
}

function expectPrototypeClean(): void {
  for (const name of ['polluted', 'finalizers', 'x']) {
    expect(Object.getOwnPropertyNames(Object.prototype), name).not.toContain(name);
  }
  expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
}

/** `key` placed at the top level, in metadata, in labels and in data of a ConfigMap body. */
function bodiesWithKey(key: string, base: Record<string, unknown>): string[] {
  const json = JSON.stringify(base);
  const poison = `"${key}": {"polluted": "yes", "finalizers": ["forged"]}`;
  return [
    json.replace(/^\{/, `{${poison}, `),
    json.replace('"metadata":{', `"metadata":{${poison}, `),
    json.replace('"labels":{', `"labels":{"${key}": "yes", `),
    json.replace('"data":{', `"data":{"${key}": "yes", `),
  ];
}

describe.each(FORBIDDEN)('the key %s', (key) => {
  async function expectRefused(
    method: string,
    path: string,
    body: string,
    contentType?: string,
  ): Promise<void> {
    const before = await current();
    const response = await send(method, path, body, contentType);
    // An emulator without server-side apply answers 415 to an apply patch before reading it.
    const unsupported = contentType === 'application/apply-patch+yaml' && response.status === 415;
    if (!unsupported) {
      expect(response.status, `${method} ${contentType ?? ''} ${body}`).toBe(400);
      expect(response.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
      expect(String(response.body['message'])).toContain(`"${key}"`);
    }
    expectPrototypeClean();
    expect(await current()).toEqual(before);
  }

  it('is refused in a create body', async () => {
    for (const body of bodiesWithKey(key, configMap('created')))
      await expectRefused('POST', CONFIGMAPS, body);
    expect((await fetch(`${env.emulator.url}${CONFIGMAPS}/created`)).status).toBe(404);
  });

  it('is refused in an update body', async () => {
    const base = await current();
    for (const body of bodiesWithKey(key, base)) await expectRefused('PUT', `${CONFIGMAPS}/target`, body);
  });

  it.each([
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
    'application/apply-patch+yaml',
  ])('is refused in a %s body', async (contentType) => {
    for (const body of [
      `{"${key}": {"polluted": "yes"}}`,
      `{"metadata": {"${key}": {"finalizers": ["forged"]}}}`,
      `{"metadata": {"labels": {"${key}": "yes"}}}`,
      `{"data": {"${key}": "yes"}}`,
    ]) {
      const path = contentType.startsWith('application/apply')
        ? `${CONFIGMAPS}/target?fieldManager=t`
        : `${CONFIGMAPS}/target`;
      await expectRefused('PATCH', path, body, contentType);
    }
  });

  it('is refused as a JSON Patch path segment, in path and in from, and as a key of a value', async () => {
    const operations = [
      { op: 'add', path: `/${key}/polluted`, value: 'yes' },
      { op: 'add', path: `/metadata/${key}/finalizers`, value: ['forged'] },
      { op: 'replace', path: `/${key}`, value: {} },
      { op: 'add', path: `/data/${key}/polluted`, value: 'yes' },
      { op: 'remove', path: `/${key}` },
      { op: 'test', path: `/${key}`, value: {} },
      { op: 'copy', from: `/${key}`, path: '/data/copied' },
      { op: 'move', from: `/metadata/${key}`, path: '/data/moved' },
    ];
    for (const operation of operations) {
      await expectRefused(
        'PATCH',
        `${CONFIGMAPS}/target`,
        JSON.stringify([operation]),
        'application/json-patch+json',
      );
    }
    await expectRefused(
      'PATCH',
      `${CONFIGMAPS}/target`,
      `[{"op": "add", "path": "/metadata/labels", "value": {"${key}": "yes"}}]`,
      'application/json-patch+json',
    );
  });
});

describe('after every attempt', () => {
  it('objects are still created and deleted normally', async () => {
    expect((await send('POST', CONFIGMAPS, JSON.stringify(configMap('after')))).status).toBe(201);
    const deleted = await fetch(`${env.emulator.url}${CONFIGMAPS}/after`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect((await fetch(`${env.emulator.url}${CONFIGMAPS}/after`)).status).toBe(404);
  });
});

describe('a malformed percent escape in the path', () => {
  it('answers 400, not 500', async () => {
    for (const path of [`${CONFIGMAPS}/%E0%A4%A`, '/api/v1/namespaces/%zz/configmaps', '/apis/%']) {
      const response = await fetch(`${env.emulator.url}${path}`);
      expect(response.status, path).toBe(400);
      expect(await response.json()).toMatchObject({ kind: 'Status', code: 400 });
    }
  });
});
