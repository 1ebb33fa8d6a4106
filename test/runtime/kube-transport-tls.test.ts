// The Kubernetes transport over TLS, as a real cluster is reached: the server's certificate is
// checked against the kubeconfig's CA (and the name it gives), a client certificate is
// presented, the bearer token is sent, and both a request and a watch stream work. Without
// the CA the connection is refused, and an insecure-skip-tls-verify cluster is reached anyway.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadClusterAccess } from '../../src/runtime/kube/cluster-access.js';
import { KubeConfigTransport } from '../../src/runtime/kube/transport.js';

const FIXTURES = join(import.meta.dirname, '..', 'controlplane-client', 'fixtures');

interface Seen {
  authorization: string | undefined;
  clientCertificateSubject: string;
  url: string;
}

let server: Server;
let port: number;
let dir: string;
const seen: Seen[] = [];
const transports: KubeConfigTransport[] = [];

beforeAll(async () => {
  server = createServer(
    {
      cert: await readFile(join(FIXTURES, 'test-server.pem')),
      key: await readFile(join(FIXTURES, 'test-server-key.pem')),
      // Asks for a client certificate without judging it: the test reads what was presented.
      requestCert: true,
      rejectUnauthorized: false,
    },
    (request, response) => {
      const peer = (request.socket as TLSSocket).getPeerCertificate();
      seen.push({
        authorization: request.headers.authorization,
        clientCertificateSubject: [peer.subject?.CN ?? []].flat().join(','),
        url: request.url ?? '',
      });
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json' });
      if (new URL(request.url ?? '/', 'https://x').searchParams.get('watch') === '1') {
        response.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } })}\n`);
        response.end(
          `${JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '7' } } })}\n`,
        );
        return;
      }
      response.end(JSON.stringify({ kind: 'Widget', metadata: { name: 'w', resourceVersion: '3' } }));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  dir = await mkdtemp(join(tmpdir(), 'kube-transport-tls-'));
});

afterAll(async () => {
  for (const transport of transports) transport.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** A transport for a kubeconfig whose cluster and user carry `cluster` and `user` fields. */
async function transportFor(
  name: string,
  cluster: Record<string, unknown>,
  user: Record<string, unknown> = { token: 'tls-token' },
): Promise<KubeConfigTransport> {
  const path = join(dir, `${name}.kubeconfig`);
  await writeFile(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: `https://127.0.0.1:${port}`, ...cluster } }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  const transport = new KubeConfigTransport(await loadClusterAccess({ kind: 'file', path }));
  transports.push(transport);
  return transport;
}

const WIDGET = '/apis/example.com/v1/namespaces/default/widgets/w';

describe('the Kubernetes transport over TLS', () => {
  it("trusts the kubeconfig's CA, sends the token and presents the client certificate", async () => {
    const transport = await transportFor(
      'trusted',
      { 'certificate-authority': join(FIXTURES, 'test-ca.pem') },
      {
        token: 'tls-token',
        'client-certificate': join(FIXTURES, 'test-server.pem'),
        'client-key': join(FIXTURES, 'test-server-key.pem'),
      },
    );
    await expect(transport.json({ method: 'GET', path: WIDGET })).resolves.toMatchObject({
      metadata: { name: 'w' },
    });
    expect(seen.at(-1)).toEqual({
      authorization: 'Bearer tls-token',
      clientCertificateSubject: '127.0.0.1',
      url: WIDGET,
    });

    const events: unknown[] = [];
    const stream = await transport.lines({
      method: 'GET',
      path: '/apis/example.com/v1/widgets',
      query: { watch: 1, allowWatchBookmarks: true },
    });
    for await (const event of stream) events.push(event);
    expect(events).toEqual([
      { type: 'ADDED', object: { metadata: { name: 'a' } } },
      { type: 'BOOKMARK', object: { metadata: { resourceVersion: '7' } } },
    ]);
    expect(seen.at(-1)?.url).toBe('/apis/example.com/v1/widgets?watch=1&allowWatchBookmarks=true');
  });

  it('refuses a server its CA did not sign, and one whose certificate names another host', async () => {
    const untrusted = await transportFor('untrusted', {});
    await expect(untrusted.json({ method: 'GET', path: WIDGET })).rejects.toMatchObject({
      reason: 'NetworkError',
      message: expect.stringMatching(/certificate/i) as unknown,
    });
    const misnamed = await transportFor('misnamed', {
      'certificate-authority': join(FIXTURES, 'test-ca.pem'),
      'tls-server-name': 'api.elsewhere.example',
    });
    await expect(misnamed.json({ method: 'GET', path: WIDGET })).rejects.toMatchObject({
      reason: 'NetworkError',
      message: expect.stringMatching(/api\.elsewhere\.example/) as unknown,
    });
  });

  it('reaches a cluster marked insecure-skip-tls-verify without its CA', async () => {
    const insecure = await transportFor('insecure', { 'insecure-skip-tls-verify': true });
    await expect(insecure.json({ method: 'GET', path: WIDGET })).resolves.toMatchObject({
      metadata: { name: 'w' },
    });
  });
});
