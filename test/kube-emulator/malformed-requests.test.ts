// Requests the kube emulator must answer with a 4xx Status rather than a 500 or a dropped
// connection: undecodable or unusual request targets, path names the real server refuses,
// and protobuf bodies that do not decode. An error no handler expected is a 500 Status that
// says nothing of the error, goes to the emulator's log, and leaves the server serving.
import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ResourceHandler } from '../../src/sim/kube/handlers/resource-handler.js';
import { startKubeEmulator, type KubeEmulator } from '../../src/sim/kube/index.js';
import { captureLog } from '../support/log-capture.js';

const SECRETS = '/api/v1/namespaces/default/secrets';

const log = captureLog('kube-emulator');

let emulator: KubeEmulator;

beforeAll(async () => {
  emulator = await startKubeEmulator({
    logger: log.logger,
  });
  const created = await fetch(`${emulator.url}${SECRETS}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ metadata: { name: 'kept' }, stringData: { a: 'b' } }),
  });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await emulator.close();
});
afterEach(() => {
  vi.restoreAllMocks();
  log.clear();
});

/** A raw request: the target goes out byte for byte (fetch would normalise `..` and `//`). */
function raw(
  method: string,
  target: string,
  body?: Buffer,
  contentType = 'application/json',
): Promise<{ status: number; body: Record<string, unknown> }> {
  const { hostname, port } = new URL(emulator.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: hostname,
        port,
        method,
        path: target,
        headers: { 'content-type': contentType, 'content-length': String(body?.length ?? 0) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function expectStillServing(): Promise<void> {
  expect((await raw('GET', `${SECRETS}/kept`)).status).toBe(200);
  expect((await raw('GET', '/api/v1/secrets')).status).toBe(200);
}

describe('request targets', () => {
  it.each([
    ['GET', `${SECRETS}/%ZZ`],
    ['PUT', `${SECRETS}/%`],
    ['PATCH', `${SECRETS}/%E0%A4%A`],
    ['DELETE', `${SECRETS}/%C0%AE`],
    ['GET', '/apis/example.com/%ED%A0%80'],
  ])('%s %s (an escape that does not decode) is a 400 BadRequest', async (method, target) => {
    const response = await raw(method, target, Buffer.from('{}'));
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
  });

  it.each(['//api/v1/namespaces/default/secrets', `${SECRETS}//kept`, '/api//v1/secrets'])(
    '%s (an empty segment) is a 404 NotFound, not another resource',
    async (target) => {
      const response = await raw('GET', target);
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ kind: 'Status', reason: 'NotFound' });
    },
  );

  it.each([
    ['..', "may not be '..'"],
    ['.', "may not be '.'"],
    ['%2e%2e', "may not be '..'"],
    ['a%2Fb', "may not contain '/'"],
    ['a%25b', "may not contain '%'"],
  ])('an object name %s in the path is a 400, as the real server answers', async (name, rule) => {
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const response = await raw(
        method,
        `${SECRETS}/${name}`,
        Buffer.from('{}'),
        'application/merge-patch+json',
      );
      expect(response.status, method).toBe(400);
      expect(response.body['message'], method).toContain(rule);
    }
  });

  it('serves an absolute-form target by its path, and refuses one that does not parse', async () => {
    expect((await raw('GET', `http://emulator.invalid${SECRETS}/kept`)).status).toBe(200);
    const broken = await raw('GET', 'http://[oops/api/v1/secrets');
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    await expectStillServing();
  });
});

/** Protobuf wire helpers: a length-delimited field, and a varint field. */
function varint(value: bigint): number[] {
  const bytes: number[] = [];
  let rest = value;
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    bytes.push(rest > 0n ? low | 0x80 : low);
  } while (rest > 0n);
  return bytes;
}
function bytesField(field: number, content: number[]): number[] {
  return [(field << 3) | 2, ...varint(BigInt(content.length)), ...content];
}
function text(value: string): number[] {
  return [...Buffer.from(value, 'utf8')];
}
const MAGIC = [0x6b, 0x38, 0x73, 0x00];

describe('protobuf bodies that do not decode', () => {
  const typeMeta = bytesField(1, [...bytesField(1, text('v1')), ...bytesField(2, text('Secret'))]);
  const secretWithTime = (seconds: bigint): Buffer =>
    Buffer.from([
      ...MAGIC,
      ...typeMeta,
      ...bytesField(
        2,
        bytesField(1, [...bytesField(1, text('timed')), ...bytesField(8, [0x08, ...varint(seconds)])]),
      ),
    ]);

  it.each([
    ['a truncated varint', Buffer.from([...MAGIC, 0x0a, 0xff])],
    ['a field longer than the body', Buffer.from([...MAGIC, 0x0a, 0x10, 0x01])],
    ['an unknown wire type', Buffer.from([...MAGIC, 0x0f])],
    // Decoded bit by bit into an ever larger BigInt, 200 kB of these once took seconds.
    ['a varint that never ends', Buffer.from([...MAGIC, 0x0a, ...new Array<number>(200_000).fill(0xff)])],
    ['a time no calendar holds', secretWithTime(1n << 62n)],
  ])('%s is a 400 BadRequest and stores nothing', async (_name, body) => {
    const response = await raw('POST', SECRETS, body, 'application/vnd.kubernetes.protobuf');
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    expect((await raw('GET', `${SECRETS}/timed`)).status).toBe(404);
    await expectStillServing();
  });

  it('a well-formed one still works', async () => {
    const created = await raw(
      'POST',
      SECRETS,
      secretWithTime(1_700_000_000n),
      'application/vnd.kubernetes.protobuf',
    );
    expect(created.status).toBe(201);
    expect((await raw('DELETE', `${SECRETS}/timed`)).status).toBe(200);
  });
});

describe('an error no handler expected', () => {
  it('is a 500 Status that names nothing of it, is logged, and the next request is served', async () => {
    vi.spyOn(ResourceHandler.prototype, 'handle').mockImplementationOnce(() => {
      throw new Error('handler broke on secret-91c');
    });
    const response = await raw('GET', `${SECRETS}/kept`);
    expect(response.status).toBe(500);
    expect(response.body).toMatchObject({ kind: 'Status', reason: 'InternalError', code: 500 });
    expect(JSON.stringify(response.body)).not.toContain('secret-91c');
    expect(log.lines).toContainEqual(
      expect.objectContaining({
        msg: 'kube emulator: unexpected error',
        method: 'GET',
        path: `${SECRETS}/kept`,
      }),
    );
    expect(log.text()).toContain('handler broke on secret-91c');
    await expectStillServing();
  });

  it('rejected asynchronously is answered the same way', async () => {
    vi.spyOn(ResourceHandler.prototype, 'handle').mockImplementationOnce(async () => {
      await Promise.resolve();
      throw new TypeError('async break');
    });
    const response = await raw('GET', `${SECRETS}/kept`);
    expect(response.status).toBe(500);
    expect(JSON.stringify(response.body)).not.toContain('async break');
    await expectStillServing();
  });
});
