// The HTTP front: routes discovery, OpenAPI, resource requests and the /_emulator endpoints,
// applies injected latency and failures, and turns every error into a Status response.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../../observability/logger.js';
import { guardRequests, requestPath } from '../http/request-guard.js';
import { ApiError, internalError } from './api-error.js';
import type { ApiContext } from './api-context.js';
import {
  AGGREGATED_DISCOVERY_TYPE,
  aggregatedDiscovery,
  groupDocument,
  groupList,
  legacyApiVersions,
  resourceList,
  versionInfo,
  wantsAggregatedDiscovery,
} from './discovery.js';
import { retryAfterHeader, type FaultState } from './faults.js';
import { ResourceHandler } from './handlers/resource-handler.js';
import type { WatchSession } from './handlers/watch.js';
import { parseJsonBody, readBody, sendError, sendJson } from './http-io.js';
import { OpenApiDocuments } from './openapi.js';
import { parseApiPath } from './request-path.js';
import { queryBoolean } from './request-options.js';
import { parseRequestTarget } from './request-target.js';
import type { ObjectWriter } from './writes.js';

export interface ServerDeps {
  ctx: ApiContext;
  writer: ObjectWriter;
  faults: FaultState;
  sessions: Set<WatchSession>;
  logger: Logger;
  bookmarkIntervalMs: number;
  /** Restarts the listener (used by POST /_emulator/restart). */
  restart: () => Promise<void>;
}

const NOT_FOUND = new ApiError(404, 'NotFound', 'the server could not find the requested resource');
/** All a client learns of an error the emulator did not expect; the log has the rest. */
const UNEXPECTED = internalError('the emulator could not handle the request; its log has the details');

const KUBE_APISERVER_IDLE_TIMEOUT_MS = 90_000;

export class EmulatorHttpServer {
  readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly resources: ResourceHandler;
  private readonly openapi: OpenApiDocuments;

  constructor(private readonly deps: ServerDeps) {
    this.resources = new ResourceHandler(deps.ctx, deps.writer, deps.faults, deps.bookmarkIntervalMs, deps.sessions, (error) =>
      deps.logger.error({ err: error }, 'kube emulator: a watch failed and was cut'),
    );
    this.openapi = new OpenApiDocuments(deps.ctx.registry);
    // Every request runs through the guard: an error no handler expected is logged and
    // answered with a bare 500 (or ends a response that had started), never the process.
    this.server = createServer(
      guardRequests((request, response) => this.handle(request, response).catch((error: unknown) => this.answerApiError(response, error)), {
        answer500: (response) => sendError(response, UNEXPECTED),
        report: (error, request) => deps.logger.error({ err: error, method: request.method, path: requestPath(request) }, 'kube emulator: unexpected error'),
      }),
    );
    // kube-apiserver keeps an idle connection 90 s (Go's IdleTimeout). Node's 5 s default let a
    // client's reuse of a connection idle about that long race the close: a write sent on it
    // failed with ECONNRESET, one the client may not repeat.
    this.server.keepAliveTimeout = KUBE_APISERVER_IDLE_TIMEOUT_MS;
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** Ends every open connection at once, as a crashed server would. */
  destroyConnections(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  /** A Status for the API's own errors; anything else (or any error once the answer started) is the guard's. */
  private answerApiError(response: ServerResponse, error: unknown): void {
    if (!(error instanceof ApiError) || response.headersSent) throw error;
    sendError(response, error, retryAfterHeader(error));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = parseRequestTarget(request.url ?? '/');
    this.deps.logger.debug({ method: request.method, path: url.pathname, query: url.searchParams.toString() }, 'request');
    if (url.pathname.startsWith('/_emulator/')) return this.emulatorEndpoint(request, response, url.pathname);
    const { faults } = this.deps;
    if (faults.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, faults.latencyMs));
    const isWatch = queryBoolean(url.searchParams.get('watch'));
    if (!isWatch) {
      const injected = faults.injectedFailure();
      if (injected) throw injected;
    }
    const accept = request.headers.accept;
    const { registry } = this.deps.ctx;
    if (url.pathname === '/openapi/v3') return sendJson(response, 200, this.openapi.root());
    if (url.pathname.startsWith('/openapi/v3/')) {
      const document = this.openapi.document(url.pathname.slice('/openapi/v3/'.length));
      if (!document) throw NOT_FOUND;
      return sendJson(response, 200, document);
    }
    if (url.pathname === '/healthz' || url.pathname === '/readyz' || url.pathname === '/livez') {
      response.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
      return;
    }
    const parsed = parseApiPath(url.pathname);
    switch (parsed.kind) {
      case 'version':
        return sendJson(response, 200, versionInfo());
      case 'legacyRoot':
        if (wantsAggregatedDiscovery(accept)) {
          return sendJson(response, 200, aggregatedDiscovery(registry, true), { Vary: 'Accept' }, AGGREGATED_DISCOVERY_TYPE);
        }
        return sendJson(response, 200, legacyApiVersions(request.headers.host ?? '127.0.0.1'));
      case 'groupList':
        if (wantsAggregatedDiscovery(accept)) {
          return sendJson(response, 200, aggregatedDiscovery(registry, false), { Vary: 'Accept' }, AGGREGATED_DISCOVERY_TYPE);
        }
        return sendJson(response, 200, groupList(registry));
      case 'group': {
        const document = groupDocument(registry, parsed.group);
        if (!document) throw NOT_FOUND;
        return sendJson(response, 200, document);
      }
      case 'resourceList': {
        const document = resourceList(registry, parsed.group, parsed.version);
        if (!document) throw NOT_FOUND;
        return sendJson(response, 200, document);
      }
      case 'resource':
        return this.resources.handle(request, response, parsed, url.searchParams);
      default:
        throw NOT_FOUND;
    }
  }

  private async emulatorEndpoint(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    const { faults } = this.deps;
    if (path === '/_emulator/faults') {
      if (request.method === 'GET') return sendJson(response, 200, faults.describe());
      if (request.method === 'DELETE') {
        faults.clear();
        return sendJson(response, 200, faults.describe());
      }
      if (request.method === 'POST') {
        faults.applyRequest(parseJsonBody(await readBody(request)));
        return sendJson(response, 200, faults.describe());
      }
    }
    if (path === '/_emulator/restart' && request.method === 'POST') {
      sendJson(response, 202, { restarting: true });
      response.on('finish', () => {
        this.deps.restart().catch((error: unknown) => this.deps.logger.error({ err: String(error) }, 'restart failed'));
      });
      return;
    }
    throw NOT_FOUND;
  }
}
