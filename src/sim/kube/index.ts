// In-process API of the Kubernetes API server emulator: start it, point clients at `url`
// (or at the written kubeconfig), inject faults, restart it with state kept, close it.
import type { AddressInfo } from 'node:net';
import { createLogger, type Logger } from '../../observability/logger.js';
import { ApiContext } from './api-context.js';
import { FaultState } from './faults.js';
import type { WatchSession } from './handlers/watch.js';
import { writeKubeconfig } from './kubeconfig.js';
import { installLifecycle } from './lifecycle.js';
import { EmulatorHttpServer } from './server.js';
import { loadCustomResourceValidator } from './validation-adapter.js';
import { ObjectWriter } from './writes.js';

export interface KubeEmulatorOptions {
  host?: string;
  port?: number;
  kubeconfigPath?: string;
  /** Changes kept per resource for watches that resume from a resourceVersion (default 1000). */
  watchHistory?: number;
  /** How often watches with allowWatchBookmarks get a BOOKMARK (default 1000 ms). */
  bookmarkIntervalMs?: number;
  logger?: Logger;
}

export interface KubeEmulatorFaults {
  dropWatches(): void;
  expireWatches(count?: number): void;
  failRequests(opts: { rate: number; statuses: number[] }): void;
  setLatency(ms: number): void;
  clear(): void;
}

export interface KubeEmulator {
  url: string;
  kubeconfigPath?: string;
  faults: KubeEmulatorFaults;
  restart(): Promise<void>;
  close(): Promise<void>;
}

const INITIAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function listen(http: EmulatorHttpServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    http.server.once('error', onError);
    http.server.listen(port, host, () => {
      http.server.off('error', onError);
      resolve((http.server.address() as AddressInfo).port);
    });
  });
}

function closeServer(http: EmulatorHttpServer): Promise<void> {
  return new Promise((resolve) => {
    http.server.close(() => resolve());
    http.destroyConnections();
  });
}

export async function startKubeEmulator(options: KubeEmulatorOptions = {}): Promise<KubeEmulator> {
  const host = options.host ?? '127.0.0.1';
  const logger = options.logger ?? createLogger({ level: 'silent', name: 'kube-emulator' });
  const validator = await loadCustomResourceValidator();
  const ctx = new ApiContext(validator, options.watchHistory ?? 1000);
  const writer = new ObjectWriter(ctx);
  installLifecycle(ctx, writer);
  const namespaceType = ctx.registry.findByStorageKey('/namespaces');
  for (const name of INITIAL_NAMESPACES) {
    if (namespaceType) writer.create(namespaceType, 'v1', undefined, { metadata: { name } }, { dryRun: false, fieldValidation: 'Ignore' });
  }

  const sessions = new Set<WatchSession>();
  const faults = new FaultState(() => {
    for (const session of [...sessions]) session.drop();
  });
  let http: EmulatorHttpServer;
  let port = options.port ?? 0;
  let restarting: Promise<void> | undefined;
  const restart = async (): Promise<void> => {
    restarting ??= (async () => {
      await closeServer(http);
      http = new EmulatorHttpServer(deps);
      await listen(http, port, host);
    })().finally(() => {
      restarting = undefined;
    });
    return restarting;
  };
  const deps = { ctx, writer, faults, sessions, logger, bookmarkIntervalMs: options.bookmarkIntervalMs ?? 1000, restart };
  http = new EmulatorHttpServer(deps);
  port = await listen(http, port, host);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (options.kubeconfigPath) await writeKubeconfig(options.kubeconfigPath, url);
  logger.info({ url, validation: validator.available }, 'kube emulator listening');

  const emulator: KubeEmulator = {
    url,
    faults: {
      dropWatches: () => faults.dropWatches(),
      expireWatches: (count) => faults.expireWatches(count),
      failRequests: (opts) => faults.failRequests(opts),
      setLatency: (ms) => faults.setLatency(ms),
      clear: () => faults.clear(),
    },
    restart,
    close: async () => {
      await restarting;
      await closeServer(http);
    },
  };
  if (options.kubeconfigPath) emulator.kubeconfigPath = options.kubeconfigPath;
  return emulator;
}
