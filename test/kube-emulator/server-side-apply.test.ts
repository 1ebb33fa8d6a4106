// Server-side apply as Flux, Argo CD (ServerSideApply=true) and `kubectl apply --server-side`
// use it, through the real kubectl: managedFields, conflicts between managers (409 unless
// forced), removal of what a manager stops applying, and a required field manager.
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

interface Managed {
  manager: string;
  operation: string;
  apiVersion: string;
  fieldsV1: Record<string, unknown>;
}

function widget(name: string, spec: Record<string, unknown>, labels?: Record<string, string>): string {
  return JSON.stringify({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) },
    spec,
  });
}

async function read(name: string): Promise<{
  spec: Record<string, unknown>;
  metadata: { labels?: Record<string, string>; managedFields?: Managed[] };
}> {
  const result = await http(env, 'GET', `${WIDGETS}/${name}`);
  return result.body as never;
}

function owner(object: { metadata: { managedFields?: Managed[] } }, manager: string): Managed | undefined {
  return object.metadata.managedFields?.find((entry) => entry.manager === manager);
}

describe('kubectl apply --server-side', () => {
  it('creates the object and records the manager as its owner', async () => {
    const result = await kubectl(
      env,
      ['apply', '--server-side', '-f', '-'],
      widget('ssa', { size: 1 }, { team: 'a' }),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('widget.example.com/ssa serverside-applied');
    const object = await read('ssa');
    expect(object.spec).toEqual({ size: 1, color: 'blue' });
    expect(owner(object, 'kubectl')).toMatchObject({
      operation: 'Apply',
      apiVersion: 'example.com/v1',
      fieldsV1: { 'f:metadata': { 'f:labels': { 'f:team': {} } }, 'f:spec': { 'f:size': {} } },
    });
  });

  it('refuses to take a field another manager owns with a different value (409), and names it', async () => {
    const result = await kubectl(
      env,
      ['apply', '--server-side', '--field-manager=team-b', '-f', '-'],
      widget('ssa', { size: 5 }),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      'Apply failed with 1 conflict: conflict with "kubectl" using example.com/v1: .spec.size',
    );
    expect((await read('ssa')).spec['size']).toBe(1);
  });

  it('shares a field applied with the same value, without a conflict', async () => {
    const result = await kubectl(
      env,
      ['apply', '--server-side', '--field-manager=team-c', '-f', '-'],
      widget('ssa', { size: 1 }),
    );
    expect(result.code, result.stderr).toBe(0);
    const object = await read('ssa');
    expect(owner(object, 'team-c')?.fieldsV1).toEqual({ 'f:spec': { 'f:size': {} } });
    expect(owner(object, 'kubectl')?.fieldsV1).toHaveProperty(['f:spec', 'f:size']);
  });

  it('takes the field with --force-conflicts; the other managers lose it', async () => {
    const result = await kubectl(
      env,
      ['apply', '--server-side', '--field-manager=team-b', '--force-conflicts', '-f', '-'],
      widget('ssa', { size: 5 }),
    );
    expect(result.code, result.stderr).toBe(0);
    const object = await read('ssa');
    expect(object.spec['size']).toBe(5);
    expect(owner(object, 'team-b')?.fieldsV1).toEqual({ 'f:spec': { 'f:size': {} } });
    expect(owner(object, 'kubectl')?.fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { 'f:team': {} } } });
    expect(owner(object, 'team-c')).toBeUndefined();
  });

  it('removes a field its manager stops applying', async () => {
    const result = await kubectl(env, ['apply', '--server-side', '-f', '-'], widget('ssa', {}, {}));
    expect(result.code, result.stderr).toBe(0);
    const object = await read('ssa');
    expect(object.metadata.labels?.['team']).toBeUndefined();
    expect(object.spec['size']).toBe(5);
  });

  it('applies to built-in kinds too', async () => {
    const configMap = (data: Record<string, string>) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'ssa-cm', namespace: 'default' },
        data,
      });
    expect(
      (await kubectl(env, ['apply', '--server-side', '-f', '-'], configMap({ a: '1', b: '2' }))).code,
    ).toBe(0);
    expect((await kubectl(env, ['apply', '--server-side', '-f', '-'], configMap({ a: '1' }))).code).toBe(0);
    const stored = await http(env, 'GET', '/api/v1/namespaces/default/configmaps/ssa-cm');
    expect(stored.body['data']).toEqual({ a: '1' });
  });

  it('moves an object from client-side apply to server-side apply without conflicts', async () => {
    expect((await kubectl(env, ['apply', '-f', '-'], widget('migrated', { size: 1 }))).code).toBe(0);
    const result = await kubectl(env, ['apply', '--server-side', '-f', '-'], widget('migrated', { size: 2 }));
    expect(result.code, result.stderr).toBe(0);
    expect((await read('migrated')).spec['size']).toBe(2);
  });
});

describe('apply over HTTP', () => {
  it('needs a field manager', async () => {
    const response = await fetch(`${env.emulator.url}${WIDGETS}/no-manager`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/apply-patch+yaml' },
      body: 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: no-manager\nspec:\n  size: 1\n',
    });
    expect(response.status).toBe(422);
    const status = (await response.json()) as { message: string };
    expect(status.message).toContain('fieldManager: Required value: is required for apply patch');
  });

  it('applies to the status subresource: only status is taken and owned, with subresource "status"', async () => {
    const apply = (manager: string, name: string, observedGeneration: number) =>
      fetch(`${env.emulator.url}${WIDGETS}/${name}/status?fieldManager=${manager}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/apply-patch+yaml' },
        body: `apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: ${name}\nspec:\n  size: 9\nstatus:\n  observedGeneration: ${observedGeneration}\n`,
      });
    expect((await apply('controller', 'missing', 1)).status).toBe(404);
    expect(
      (
        await http(env, 'POST', WIDGETS, {
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name: 'status-ssa' },
          spec: { size: 1 },
        })
      ).status,
    ).toBe(201);
    expect((await apply('controller', 'status-ssa', 1)).status).toBe(200);
    const object = await read('status-ssa');
    expect(object.spec['size']).toBe(1);
    expect((object as unknown as { status: unknown }).status).toEqual({ observedGeneration: 1 });
    expect(object.metadata.managedFields?.find((entry) => entry.manager === 'controller')).toMatchObject({
      operation: 'Apply',
      subresource: 'status',
      fieldsV1: { 'f:status': { 'f:observedGeneration': {} } },
    });
    expect((await apply('other-controller', 'status-ssa', 2)).status).toBe(409);
  });

  it('keeps the entry of a manager a write takes nothing from as it was, "." markers included', async () => {
    // A real server writes "." for a map a manager owns as a whole; entries are rewritten only
    // when their field set changes, never put in another form by someone else's write.
    const argo = {
      manager: 'argocd-controller',
      operation: 'Update',
      apiVersion: 'example.com/v1',
      time: '2026-01-02T03:04:05Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': { '.': {}, 'f:size': {} },
      },
    };
    const created = await http(env, 'POST', WIDGETS, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'kept-entry', labels: { app: 'a' } },
      spec: { size: 1 },
    });
    expect(created.status).toBe(201);
    // managedFields a client sets on an update are taken as given.
    const given = await http(
      env,
      'PATCH',
      `${WIDGETS}/kept-entry`,
      { metadata: { managedFields: [argo] } },
      'application/merge-patch+json',
    );
    expect(given.status).toBe(200);
    expect(owner(await read('kept-entry'), 'argocd-controller')).toEqual(argo);
    const written = await http(
      env,
      'PATCH',
      `${WIDGETS}/kept-entry/status?fieldManager=controller`,
      { status: { observedGeneration: 1 } },
      'application/merge-patch+json',
    );
    expect(written.status).toBe(200);
    const object = await read('kept-entry');
    expect(owner(object, 'argocd-controller')).toEqual(argo);
    expect(owner(object, 'controller')).toMatchObject({
      subresource: 'status',
      fieldsV1: { 'f:status': { 'f:observedGeneration': {} } },
    });
  });

  it('refuses a configuration that would reach an object prototype, and stores nothing', async () => {
    const response = await fetch(`${env.emulator.url}${WIDGETS}/polluting?fieldManager=m`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/apply-patch+yaml' },
      body: 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: polluting\nspec:\n  size: 1\n  __proto__:\n    polluted: true\n',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toContain('"__proto__" is not allowed');
    expect((await http(env, 'GET', `${WIDGETS}/polluting`)).status).toBe(404);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('answers 409 with the conflicting fields as causes, and honours fieldValidation=Strict', async () => {
    const apply = (manager: string, body: string, query = '') =>
      fetch(`${env.emulator.url}${WIDGETS}/http-ssa?fieldManager=${manager}${query}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/apply-patch+yaml' },
        body,
      });
    const yaml = (size: number, extra = '') =>
      `apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: http-ssa\nspec:\n  size: ${size}\n${extra}`;
    expect((await apply('one', yaml(1))).status).toBe(201);
    const conflict = await apply('two', yaml(2));
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toMatchObject({
      reason: 'Conflict',
      details: {
        causes: [
          {
            reason: 'FieldManagerConflict',
            field: '.spec.size',
            message: 'conflict with "one" using example.com/v1',
          },
        ],
      },
    });
    expect((await apply('two', yaml(2), '&force=true')).status).toBe(200);
    const strict = await apply('one', yaml(2, '  x: 1\n'), '&fieldValidation=Strict');
    expect(strict.status).toBe(400);
    expect(((await strict.json()) as { message: string }).message).toContain(
      'strict decoding error: unknown field "spec.x"',
    );
  });
});
