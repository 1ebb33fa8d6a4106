// fieldValidation as a real API server applies it to custom resources, for create, update,
// patch (and server-side apply, in server-side-apply.test.ts): Strict refuses unknown fields
// with a 400 that names them and changes nothing, Warn stores the pruned object and says so
// in a Warning header, Ignore prunes silently. Driven through the real kubectl first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, installWidgetCrd, kubectl, startTestEmulator, WIDGETS, type TestEmulator } from './helpers.js';

let env: TestEmulator;

beforeAll(async () => {
  env = await startTestEmulator();
  await installWidgetCrd(env);
});
afterAll(async () => {
  await env.stop();
});

function widget(name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name, namespace: 'default' },
    spec,
  });
}

const STRICT_ERROR = 'strict decoding error: unknown field "spec.x"';

describe('kubectl --validate against the emulator', () => {
  it('strict: a create with an unknown field fails naming it, and nothing is stored', async () => {
    const result = await kubectl(
      env,
      ['apply', '--validate=strict', '-f', '-'],
      widget('strict-new', { size: 1, x: 1 }),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('BadRequest');
    expect(result.stderr).toContain(STRICT_ERROR);
    expect((await http(env, 'GET', `${WIDGETS}/strict-new`)).status).toBe(404);
  });

  it('strict: an apply that adds an unknown field to an existing object fails, and the object is unchanged', async () => {
    expect(
      (await kubectl(env, ['apply', '--validate=strict', '-f', '-'], widget('strict-old', { size: 1 }))).code,
    ).toBe(0);
    const before = await http(env, 'GET', `${WIDGETS}/strict-old`);
    const result = await kubectl(
      env,
      ['apply', '--validate=strict', '-f', '-'],
      widget('strict-old', { size: 2, x: 1 }),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(STRICT_ERROR);
    const after = await http(env, 'GET', `${WIDGETS}/strict-old`);
    expect(after.body['spec']).toEqual({ size: 1, color: 'blue' });
    expect((after.body['metadata'] as { resourceVersion: string }).resourceVersion).toBe(
      (before.body['metadata'] as { resourceVersion: string }).resourceVersion,
    );
  });

  it('strict: kubectl replace (PUT) with an unknown field fails', async () => {
    expect((await kubectl(env, ['apply', '-f', '-'], widget('strict-put', { size: 1 }))).code).toBe(0);
    const result = await kubectl(
      env,
      ['replace', '--validate=strict', '-f', '-'],
      widget('strict-put', { size: 1, x: 1 }),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(STRICT_ERROR);
  });

  it('strict and warn apply to server-side apply too', async () => {
    const strict = await kubectl(
      env,
      ['apply', '--server-side', '--validate=strict', '-f', '-'],
      widget('ssa-strict', { size: 1, x: 1 }),
    );
    expect(strict.code).not.toBe(0);
    expect(strict.stderr).toContain(STRICT_ERROR);
    expect((await http(env, 'GET', `${WIDGETS}/ssa-strict`)).status).toBe(404);
    const warned = await kubectl(
      env,
      ['apply', '--server-side', '--validate=warn', '-f', '-'],
      widget('ssa-warn', { size: 1, x: 1 }),
    );
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stderr).toContain('Warning: unknown field "spec.x"');
    const stored = await http(env, 'GET', `${WIDGETS}/ssa-warn`);
    expect(stored.body['spec']).toEqual({ size: 1, color: 'blue' });
    // Ownership is recorded for what was stored, not for the pruned field.
    expect((stored.body['metadata'] as { managedFields: unknown[] }).managedFields).toEqual([
      expect.objectContaining({
        manager: 'kubectl',
        operation: 'Apply',
        fieldsV1: { 'f:spec': { 'f:size': {} } },
      }),
    ]);
  });

  it('warn: the object is stored without the field, and kubectl prints the server warning', async () => {
    const result = await kubectl(
      env,
      ['apply', '--validate=warn', '-f', '-'],
      widget('warned', { size: 1, x: 1 }),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Warning: unknown field "spec.x"');
    expect((await http(env, 'GET', `${WIDGETS}/warned`)).body['spec']).toEqual({ size: 1, color: 'blue' });
  });

  it('ignore: the field is pruned without a word', async () => {
    const result = await kubectl(
      env,
      ['apply', '--validate=false', '-f', '-'],
      widget('ignored', { size: 1, x: 1 }),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect((await http(env, 'GET', `${WIDGETS}/ignored`)).body['spec']).toEqual({ size: 1, color: 'blue' });
  });
});

describe('fieldValidation over HTTP', () => {
  const body = (name: string, spec: Record<string, unknown>) =>
    JSON.parse(widget(name, spec)) as Record<string, unknown>;

  it.each([
    ['POST', WIDGETS, 'application/json'],
    ['PUT', `${WIDGETS}/http-target`, 'application/json'],
    ['PATCH', `${WIDGETS}/http-target`, 'application/merge-patch+json'],
  ])(
    '%s with Strict answers 400 BadRequest naming the field; with Warn a Warning header',
    async (method, path, type) => {
      if (method !== 'POST') await http(env, 'POST', WIDGETS, body('http-target', { size: 1 }));
      const payload = async (mode: string): Promise<Record<string, unknown>> => {
        if (method === 'PATCH') return { spec: { x: 1 } };
        if (method === 'POST') return body(`http-${mode.toLowerCase()}`, { size: 1, x: 1 });
        const current = await http(env, 'GET', `${WIDGETS}/http-target`);
        return { ...body('http-target', { size: 1, x: 1 }), metadata: current.body['metadata'] };
      };
      const strict = await http(env, method, `${path}?fieldValidation=Strict`, await payload('Strict'), type);
      expect(strict.status).toBe(400);
      expect(strict.body).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'BadRequest',
        code: 400,
      });
      expect(strict.body['message']).toContain(STRICT_ERROR);
      if (method === 'POST') expect((await http(env, 'GET', `${WIDGETS}/http-strict`)).status).toBe(404);
      const warned = await http(env, method, `${path}?fieldValidation=Warn`, await payload('Warn'), type);
      expect(warned.status).toBeLessThan(300);
      expect(warned.headers.get('warning')).toBe('299 - "unknown field \\"spec.x\\""');
      const ignored = await http(
        env,
        method,
        `${path}?fieldValidation=Ignore`,
        await payload('Ignore'),
        type,
      );
      expect(ignored.status).toBeLessThan(300);
      expect(ignored.headers.get('warning')).toBeNull();
    },
  );
});
