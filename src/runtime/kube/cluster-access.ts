// What the transport needs to reach an API server: the server's URL, and a way to put the
// credentials and TLS material on a request. @kubernetes/client-node's KubeConfig provides
// it, but importing that library costs about 70 MB of memory (its generated API models load
// with it), a third of the operator's budget at 10,000 objects. So the common cases are
// read here with js-yaml: the in-cluster service account (production), and kubeconfig files
// whose users hold a token, a token file, a client certificate or a username and password.
// Anything else (exec plugins, auth providers, several files merged through KUBECONFIG)
// loads client-node's KubeConfig on demand, so that no cluster that kubectl reaches is lost.
import { readFileSync } from 'node:fs';
import type https from 'node:https';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import yaml from 'js-yaml';
import { KubeClient } from './client.js';
import { KubeConfigTransport } from './transport.js';

export interface ClusterAccess {
  getCurrentCluster(): { server: string } | null;
  applyToHTTPSOptions(options: https.RequestOptions): Promise<void>;
}

export type ClusterAccessSource =
  { kind: 'file'; path: string; context?: string } | { kind: 'in-cluster' } | { kind: 'default' };

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** Bound service-account tokens rotate; re-reading the file this often follows them cheaply. */
const TOKEN_FILE_TTL_MS = 10_000;

interface NamedCluster {
  server: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
}
interface NamedUser {
  token?: string;
  tokenFile?: string;
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  username?: string;
  password?: string;
  exec?: unknown;
  'auth-provider'?: unknown;
}
interface KubeconfigFile {
  clusters?: Array<{ name: string; cluster: NamedCluster }>;
  users?: Array<{ name: string; user: NamedUser | null }>;
  contexts?: Array<{ name: string; context: { cluster: string; user?: string } }>;
  'current-context'?: string;
}

interface Credentials {
  server: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  insecure: boolean;
  serverName?: string;
  token?: string;
  tokenFile?: string;
  basic?: { username: string; password: string };
}

class LightClusterAccess implements ClusterAccess {
  private tokenCache: { value: string; readAt: number } | undefined;

  constructor(private readonly credentials: Credentials) {}

  getCurrentCluster(): { server: string } {
    return { server: this.credentials.server };
  }

  async applyToHTTPSOptions(options: https.RequestOptions): Promise<void> {
    const { ca, cert, key, insecure, serverName, basic } = this.credentials;
    if (ca) options.ca = ca;
    if (cert) options.cert = cert;
    if (key) options.key = key;
    if (serverName) options.servername = serverName;
    options.rejectUnauthorized = !insecure;
    const headers = (options.headers ??= {}) as Record<string, string>;
    const token = this.token();
    if (token) headers.Authorization = `Bearer ${token}`;
    else if (basic)
      headers.Authorization = `Basic ${Buffer.from(`${basic.username}:${basic.password}`).toString('base64')}`;
  }

  private token(): string | undefined {
    const { token, tokenFile } = this.credentials;
    if (token) return token;
    if (!tokenFile) return undefined;
    const now = Date.now();
    if (!this.tokenCache || now - this.tokenCache.readAt > TOKEN_FILE_TTL_MS) {
      this.tokenCache = { value: readFileSync(tokenFile, 'utf8').trim(), readAt: now };
    }
    return this.tokenCache.value;
  }
}

export async function loadClusterAccess(source: ClusterAccessSource): Promise<ClusterAccess> {
  if (source.kind === 'in-cluster') return inCluster();
  if (source.kind === 'file') return fromFile(source.path, source.context);
  const paths = (process.env.KUBECONFIG ?? '').split(':').filter((path) => path !== '');
  if (paths.length > 1) return fullKubeConfig(source);
  const path = paths[0] ?? join(homedir(), '.kube', 'config');
  if (fileExists(path)) return fromFile(path);
  if (process.env.KUBERNETES_SERVICE_HOST) return inCluster();
  return fullKubeConfig(source);
}

function inCluster(): ClusterAccess {
  const host = process.env.KUBERNETES_SERVICE_HOST;
  const port = process.env.KUBERNETES_SERVICE_PORT ?? '443';
  if (!host) throw new Error('not running in a cluster: KUBERNETES_SERVICE_HOST is not set');
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return new LightClusterAccess({
    server,
    ca: readFileSync(join(SERVICE_ACCOUNT_DIR, 'ca.crt')),
    tokenFile: join(SERVICE_ACCOUNT_DIR, 'token'),
    insecure: false,
  });
}

async function fromFile(path: string, contextName?: string): Promise<ClusterAccess> {
  const file = (yaml.load(readFileSync(path, 'utf8')) ?? {}) as KubeconfigFile;
  const name = contextName ?? file['current-context'];
  const context = file.contexts?.find((entry) => entry.name === name)?.context;
  if (!context) throw new Error(`kubeconfig ${path}: no context named "${name ?? ''}" (set current-context)`);
  const cluster = file.clusters?.find((entry) => entry.name === context.cluster)?.cluster;
  if (!cluster?.server)
    throw new Error(`kubeconfig ${path}: context "${name ?? ''}" names no cluster with a server`);
  const user = file.users?.find((entry) => entry.name === context.user)?.user ?? {};
  if (user.exec !== undefined || user['auth-provider'] !== undefined) {
    return fullKubeConfig({ kind: 'file', path, context: contextName });
  }
  const base = dirname(path);
  const fileOrData = (filePath: string | undefined, data: string | undefined): Buffer | undefined =>
    data
      ? Buffer.from(data, 'base64')
      : filePath
        ? readFileSync(isAbsolute(filePath) ? filePath : join(base, filePath))
        : undefined;
  return new LightClusterAccess({
    server: cluster.server,
    ca: fileOrData(cluster['certificate-authority'], cluster['certificate-authority-data']),
    cert: fileOrData(user['client-certificate'], user['client-certificate-data']),
    key: fileOrData(user['client-key'], user['client-key-data']),
    insecure: cluster['insecure-skip-tls-verify'] === true,
    serverName: cluster['tls-server-name'],
    token: user.token,
    tokenFile: user.tokenFile
      ? isAbsolute(user.tokenFile)
        ? user.tokenFile
        : join(base, user.tokenFile)
      : undefined,
    basic:
      user.username !== undefined && user.password !== undefined
        ? { username: user.username, password: user.password }
        : undefined,
  });
}

/** The full client-node KubeConfig, imported only when the light reader cannot serve. */
async function fullKubeConfig(source: ClusterAccessSource): Promise<ClusterAccess> {
  const { loadKubeConfig } = await import('./kubeconfig.js');
  return loadKubeConfig(source);
}

function fileExists(path: string): boolean {
  try {
    readFileSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A KubeClient and the transport behind it (close the transport on shutdown). */
export function kubeClientFrom(access: ClusterAccess): {
  client: KubeClient;
  transport: KubeConfigTransport;
} {
  const transport = new KubeConfigTransport(access);
  return { client: new KubeClient(transport), transport };
}
