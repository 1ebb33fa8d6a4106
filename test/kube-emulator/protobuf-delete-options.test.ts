// A DELETE whose DeleteOptions body is protobuf, as helm's storage driver sends it when
// `helm uninstall` purges the release Secrets: the emulator reads it as the real server does,
// preconditions and dry run included, instead of failing to parse it as JSON.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { http, startTestEmulator, type TestEmulator } from './helpers.js';

const SECRETS = '/api/v1/namespaces/default/secrets';

/** A length-delimited protobuf field. Lengths here stay under 128, so one byte holds each. */
function field(number: number, value: Buffer | string): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  return Buffer.concat([Buffer.from([(number << 3) | 2, bytes.length]), bytes]);
}

/** "k8s\0" + runtime.Unknown{typeMeta, raw}, around a meta/v1 DeleteOptions. */
function deleteOptions(options: { uid?: string; dryRunAll?: boolean; apiVersion?: string; kind?: string }): Buffer {
  const parts: Buffer[] = [];
  if (options.uid !== undefined) parts.push(field(2, field(1, options.uid)));
  parts.push(field(4, 'Background'));
  if (options.dryRunAll) parts.push(field(5, 'All'));
  const typeMeta = Buffer.concat([field(1, options.apiVersion ?? 'v1'), field(2, options.kind ?? 'DeleteOptions')]);
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), field(1, typeMeta), field(2, Buffer.concat(parts))]);
}

async function deleteWith(env: TestEmulator, name: string, body: Buffer): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${env.emulator.url}${SECRETS}/${name}`, {
    method: 'DELETE',
    headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf', Accept: 'application/json' },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

let env: TestEmulator;
let uid: string;
beforeEach(async () => {
  env = await startTestEmulator();
  const created = await http(env, 'POST', SECRETS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sh.helm.release.v1.x.v1' } });
  expect(created.status).toBe(201);
  uid = String((created.body['metadata'] as Record<string, unknown>)['uid']);
});
afterEach(async () => {
  await env.stop();
});

describe('a protobuf DeleteOptions body', () => {
  it('deletes the object', async () => {
    expect((await deleteWith(env, 'sh.helm.release.v1.x.v1', deleteOptions({}))).status).toBe(200);
    expect((await http(env, 'GET', `${SECRETS}/sh.helm.release.v1.x.v1`)).status).toBe(404);
  });

  it('honours a uid precondition and dryRun=All', async () => {
    const conflict = await deleteWith(env, 'sh.helm.release.v1.x.v1', deleteOptions({ uid: 'not-the-uid' }));
    expect(conflict.status).toBe(409);
    expect(String(conflict.body['message'])).toContain('not-the-uid');
    expect((await deleteWith(env, 'sh.helm.release.v1.x.v1', deleteOptions({ uid, dryRunAll: true }))).status).toBe(200);
    expect((await http(env, 'GET', `${SECRETS}/sh.helm.release.v1.x.v1`)).status).toBe(200);
    expect((await deleteWith(env, 'sh.helm.release.v1.x.v1', deleteOptions({ uid }))).status).toBe(200);
    expect((await http(env, 'GET', `${SECRETS}/sh.helm.release.v1.x.v1`)).status).toBe(404);
  });

  it('of another kind is refused with a 415 naming it', async () => {
    const refused = await deleteWith(env, 'sh.helm.release.v1.x.v1', deleteOptions({ kind: 'Secret' }));
    expect(refused.status).toBe(415);
    expect(String(refused.body['message'])).toContain('must be DeleteOptions (got v1 Secret)');
  });
});
