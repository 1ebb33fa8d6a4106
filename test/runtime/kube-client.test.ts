// The client against a stub HTTP server: what goes on the wire (paths, content types,
// credentials from the kubeconfig) and how answers and broken streams come back.
import { getEventListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/runtime/kube/client.js';
import { KubeApiError, isConflict, isGone, isNotFound } from '../../src/runtime/kube/errors.js';
import { KubeConfigTransport } from '../../src/runtime/kube/transport.js';
import { KubeLeaseStore } from '../../src/runtime/leaderelection/lease-store.js';

interface Seen {
  method: string;
  url: string;
  contentType: string | undefined;
  authorization: string | undefined;
  body: string;
}

const seen: Seen[] = [];
let server: http.Server;
let client: KubeClient;
let transport: KubeConfigTransport;
const WIDGETS = { group: 'example.com', version: 'v1', plural: 'widgets' };

function send(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Listens on a free local port and returns a transport whose kubeconfig names that server. */
async function listeningTransport(on: http.Server): Promise<KubeConfigTransport> {
  await new Promise<void>((resolve) => on.listen(0, '127.0.0.1', resolve));
  const { port } = on.address() as AddressInfo;
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: false }],
    users: [{ name: 'u', token: 'sekret-token' }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
  return new KubeConfigTransport(config);
}

/** Ends a test server's connections and closes it. */
async function closed(on: http.Server): Promise<void> {
  on.closeAllConnections();
  await new Promise((resolve) => on.close(resolve));
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        contentType: req.headers['content-type'],
        authorization: req.headers.authorization,
        body,
      });
      const url = new URL(req.url ?? '/', 'http://x');
      // Never answered: the request's deadline or its caller must end it.
      if (url.pathname.endsWith('/silent')) return;
      if (url.pathname.endsWith('/missing'))
        return send(res, 404, {
          kind: 'Status',
          code: 404,
          reason: 'NotFound',
          message: 'widgets "missing" not found',
        });
      if (req.method === 'PUT')
        return send(res, 409, {
          kind: 'Status',
          code: 409,
          reason: 'Conflict',
          message: 'the object has been modified',
        });
      if (url.searchParams.get('watch') === '1') {
        if (url.searchParams.get('resourceVersion') === '1')
          return send(res, 410, { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(
          `${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', managedFields: [{ manager: 'm' }], resourceVersion: '5' } } })}\n`,
        );
        res.write(
          `${JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '6' } } })}\n`,
        );
        if (url.searchParams.get('resourceVersion') === 'hang') return;
        if (url.searchParams.get('resourceVersion') === 'break') {
          setTimeout(() => res.socket?.destroy(), 20);
          return;
        }
        res.end();
        return;
      }
      if (req.method === 'GET' && url.pathname.endsWith('/widgets')) {
        const page = url.searchParams.get('continue');
        return send(res, 200, {
          kind: 'WidgetList',
          metadata: { resourceVersion: '9', ...(page ? {} : { continue: 'p2' }) },
          items: [{ metadata: { name: page ? 'b' : 'a' } }],
        });
      }
      return send(res, 200, {
        ...(body ? (JSON.parse(body) as object) : {}),
        metadata: { name: 'x', resourceVersion: '10' },
      });
    });
  });
  transport = await listeningTransport(server);
  client = new KubeClient(transport);
});

afterAll(() => closed(server));

describe('KubeClient', () => {
  it('sends the kubeconfig credentials on plain HTTP, where client-node itself would refuse', async () => {
    await client.get(WIDGETS, 'ns', 'x');
    expect(seen.at(-1)).toMatchObject({
      method: 'GET',
      url: '/apis/example.com/v1/namespaces/ns/widgets/x',
      authorization: 'Bearer sekret-token',
    });
  });

  it('merge-patches objects and status with the merge-patch content type', async () => {
    await client.mergePatch(WIDGETS, 'ns', 'x', { spec: { size: 2 } });
    expect(seen.at(-1)).toMatchObject({
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: '{"spec":{"size":2}}',
    });
    await client.mergePatchStatus(WIDGETS, 'ns', 'x', { status: { ready: true } });
    expect(seen.at(-1)).toMatchObject({
      url: '/apis/example.com/v1/namespaces/ns/widgets/x/status',
      contentType: 'application/merge-patch+json',
    });
    await client.jsonPatch(WIDGETS, 'ns', 'x', [{ op: 'remove', path: '/metadata/finalizers/0' }]);
    expect(seen.at(-1)?.contentType).toBe('application/json-patch+json');
  });

  it('pages through a list keeping the first page resourceVersion', async () => {
    const all = await client.listAll(WIDGETS, { namespace: 'ns', limit: 1 });
    expect(all.items.map((i) => i.metadata.name)).toEqual(['a', 'b']);
    expect(all.resourceVersion).toBe('9');
    expect(seen.at(-1)?.url).toContain('continue=p2');
  });

  it('maps Status answers to typed errors without echoing the request body', async () => {
    const notFound = await client.get(WIDGETS, 'ns', 'missing').catch((e: unknown) => e);
    expect(isNotFound(notFound)).toBe(true);
    expect((notFound as KubeApiError).message).toBe(
      'GET /apis/example.com/v1/namespaces/ns/widgets/missing: widgets "missing" not found',
    );
    const conflict = await client
      .replace(WIDGETS, {
        metadata: { name: 'x', namespace: 'ns', resourceVersion: '1' },
        data: { password: 'hunter2' },
      })
      .catch((e: unknown) => e);
    expect(isConflict(conflict)).toBe(true);
    expect(String((conflict as Error).message)).not.toContain('hunter2');
  });

  it('rejects names that would escape the path, naming the field', async () => {
    await expect(client.get(WIDGETS, 'ns', 'a/b')).rejects.toThrow(/name "a\/b" is invalid/);
    await expect(client.get(WIDGETS, 'Bad_NS', 'a')).rejects.toThrow(/namespace "Bad_NS" is invalid/);
  });

  it('streams watch events with bookmarks and the query the reflector needs', async () => {
    const events = [];
    for await (const e of await client.watch(WIDGETS, {
      namespace: 'ns',
      resourceVersion: '4',
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
    })) {
      events.push(e.type);
    }
    expect(events).toEqual(['ADDED', 'BOOKMARK']);
    const url = new URL(seen.at(-1)?.url ?? '', 'http://x');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      watch: '1',
      resourceVersion: '4',
      allowWatchBookmarks: 'true',
      timeoutSeconds: '300',
    });
  });

  it('decodes watch events without metadata.managedFields when the reader drops them, and with them otherwise', async () => {
    const managedFieldsOf = async (omitManagedFields: boolean): Promise<unknown[]> => {
      const found: unknown[] = [];
      for await (const e of await client.watch(WIDGETS, { resourceVersion: '4', omitManagedFields })) {
        if (e.type === 'ADDED') found.push((e.object.metadata as { managedFields?: unknown }).managedFields);
      }
      return found;
    };
    expect(await managedFieldsOf(true)).toEqual([undefined]);
    expect(await managedFieldsOf(false)).toEqual([[{ manager: 'm' }]]);
  });

  it('answers 410 on a watch as Gone, and a broken stream as an error, not a clean end', async () => {
    const gone = await client.watch(WIDGETS, { resourceVersion: '1' }).catch((e: unknown) => e);
    expect(isGone(gone)).toBe(true);
    const consume = async (): Promise<number> => {
      let n = 0;
      for await (const _ of await client.watch(WIDGETS, { resourceVersion: 'break' })) n += 1;
      return n;
    };
    await expect(consume()).rejects.toBeInstanceOf(KubeApiError);
  });

  it('ends the iteration of an open watch when its signal aborts', async () => {
    const controller = new AbortController();
    const events: string[] = [];
    const stream = await client.watch(WIDGETS, { resourceVersion: 'hang', signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    for await (const e of stream) events.push(e.type);
    expect(events).toEqual(['ADDED', 'BOOKMARK']);
  });

  it('writes Lease times with 6 fractional digits', async () => {
    const store = new KubeLeaseStore(client, 'ns', 'lock');
    const at = Date.parse('2025-01-02T03:04:05.678Z');
    await store.create({
      holderIdentity: 'me',
      leaseDurationSeconds: 15,
      acquireTime: at,
      renewTime: at,
      leaseTransitions: 0,
    });
    const body = JSON.parse(seen.at(-1)?.body ?? '{}') as {
      spec: { renewTime: string; acquireTime: string };
    };
    expect(body.spec.renewTime).toBe('2025-01-02T03:04:05.678000Z');
    expect(body.spec.acquireTime).toBe('2025-01-02T03:04:05.678000Z');
  });

  it("ends a request at its deadline (Timeout) or when its caller aborts (Aborted), and lets go of the caller's signal", async () => {
    const path = '/apis/example.com/v1/namespaces/default/widgets/silent';
    const caller = new AbortController();
    await expect(
      transport.json({ method: 'GET', path, timeoutMs: 50, signal: caller.signal }),
    ).rejects.toMatchObject({
      reason: 'Timeout',
    });
    const pending = transport.json({ method: 'GET', path, signal: caller.signal });
    caller.abort();
    await expect(pending).rejects.toMatchObject({ reason: 'Aborted' });

    // Answered requests leave nothing registered on a long-lived caller's signal.
    const controller = new AbortController();
    for (let i = 0; i < 20; i += 1) {
      await transport.json({
        method: 'GET',
        path: '/apis/example.com/v1/namespaces/default/widgets/w',
        signal: controller.signal,
      });
    }
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('opens no more connections than it has requests in flight', async () => {
    // Each worker sends its next request as soon as its last answer is read; a connection
    // that is not back in the pool by then makes the pool open another: twice the sockets on
    // the API server, and their memory here, for nothing.
    let connections = 0;
    const counting = http.createServer((req, res) => {
      req.resume();
      send(res, 200, { kind: 'Widget', metadata: { name: 'w', resourceVersion: '1' } });
    });
    counting.on('connection', () => (connections += 1));
    const transport = await listeningTransport(counting);
    const workers = 8;
    try {
      await Promise.all(
        Array.from({ length: workers }, async () => {
          for (let i = 0; i < 25; i += 1) {
            await transport.json({
              method: 'PATCH',
              path: '/apis/example.com/v1/namespaces/default/widgets/w',
              body: {},
            });
          }
        }),
      );
      expect(connections).toBeLessThanOrEqual(workers);
    } finally {
      transport.close();
      await closed(counting);
    }
  });

  it('retries a read once when the server closed the kept-alive connection it reused; a write is not repeated', async () => {
    // The server answers the first request of each connection and closes the connection on
    // the second, unanswered: what an API server's idle timeout does when it races a reuse.
    const served = new WeakMap<object, number>();
    let requests = 0;
    const closing = http.createServer((req, res) => {
      requests += 1;
      const socket = req.socket;
      const count = (served.get(socket) ?? 0) + 1;
      served.set(socket, count);
      if (count > 1) {
        socket.destroy();
        return;
      }
      req.resume();
      send(res, 200, { kind: 'Widget', metadata: { name: 'w', resourceVersion: '1' } });
    });
    const transport = await listeningTransport(closing);
    const reusing = new KubeClient(transport);
    try {
      await reusing.get(WIDGETS, 'default', 'w');
      // Reuses the kept-alive connection, which the server closes: read again on a new one.
      expect(await reusing.get(WIDGETS, 'default', 'w')).toMatchObject({ metadata: { name: 'w' } });
      expect(requests).toBe(3);
      // A write on a reused connection that breaks is the caller's to judge: not sent twice.
      await expect(
        reusing.mergePatch(WIDGETS, 'default', 'w', { metadata: { labels: { a: 'b' } } }),
      ).rejects.toMatchObject({ statusCode: 0, reason: 'NetworkError' });
      expect(requests).toBe(4);
    } finally {
      transport.close();
      await closed(closing);
    }
  });
});
