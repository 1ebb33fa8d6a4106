// The operator's one HTTP port: /metrics for Prometheus (or `?name[]=` for chosen metrics), /healthz for liveness (the process
// and its loops are alive) and /readyz for readiness (caches synced; leading or standing by).
// Probes answer with a short plain-text reason, as kube-apiserver's own health endpoints do.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { metricsText } from './metrics-text.js';

export interface HealthCheck {
  ok: boolean;
  /** One line that says what is wrong (or "ok"). */
  reason: string;
}

export interface ObservabilityServerOptions {
  host: string;
  port: number;
  registry: Registry;
  liveness: () => HealthCheck;
  readiness: () => HealthCheck;
}

export interface ObservabilityServer {
  url: string;
  close(): Promise<void>;
}

export async function startObservabilityServer(
  options: ObservabilityServerOptions,
): Promise<ObservabilityServer> {
  const server: Server = createServer((request, response) => {
    const [path, query = ''] = (request.url ?? '/').split('?', 2);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/metrics') {
      metricsText(options.registry, new URLSearchParams(query)).then(
        (text) => response.writeHead(200, { 'content-type': options.registry.contentType }).end(text),
        (error: unknown) => response.writeHead(500).end(`metrics: ${String(error)}\n`),
      );
      return;
    }
    const check =
      path === '/healthz' || path === '/livez'
        ? options.liveness
        : path === '/readyz'
          ? options.readiness
          : undefined;
    if (!check) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const result = check();
    response.writeHead(result.ok ? 200 : 503, { 'content-type': 'text/plain' }).end(`${result.reason}\n`);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
