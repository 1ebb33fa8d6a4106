// Shared plumbing for the emulator contract tests: start an emulator, call it over HTTP,
// and build valid requests that each test then breaks in one way.
import { afterAll } from 'vitest';
import {
  startControlPlaneEmulator,
  type ControlPlaneEmulator,
  type ControlPlaneEmulatorOptions,
} from '../../src/sim/controlplane/index.js';

export const KEY = 'emulator-key';

export interface CallOptions {
  body?: unknown;
  rawBody?: string;
  key?: string | null;
  /** For /_emulator/ paths: the bearer token to send (default the emulator's; null: none). */
  adminToken?: string | null;
  headers?: Record<string, string>;
}

export interface CallResult<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

/** A clock the test moves by hand, so lifecycle and rate-limit tests need no sleeping. */
export class ManualClock {
  constructor(public time = Date.UTC(2030, 0, 1)) {}
  now = (): number => this.time;
  advance(ms: number): void {
    this.time += ms;
  }
}

export class EmulatorClient {
  constructor(readonly emulator: ControlPlaneEmulator) {}

  get url(): string {
    return this.emulator.url;
  }

  async call<T = unknown>(method: string, path: string, options: CallOptions = {}): Promise<CallResult<T>> {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    const key = options.key === undefined ? KEY : options.key;
    if (key !== null) headers['x-api-key'] = key;
    const adminToken = options.adminToken === undefined ? this.emulator.adminToken : options.adminToken;
    if (path.startsWith('/_emulator/') && adminToken !== null) headers.authorization = `Bearer ${adminToken}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.url}${path}`, { method, headers, body });
    const text = await response.text();
    return {
      status: response.status,
      body: (text === '' ? undefined : JSON.parse(text)) as T,
      headers: response.headers,
    };
  }

  async defaults(key: string | null = KEY): Promise<{ listenerId: string; integrationId: string }> {
    const listeners = await this.call<{ resources: { id: string }[] }>('GET', '/v2/listeners', { key });
    const integrations = await this.call<{ id: string }[]>('GET', '/v1/integrations/repo_host/install', {
      key,
    });
    const listenerId = listeners.body.resources[0]?.id;
    const integrationId = integrations.body[0]?.id;
    if (!listenerId || !integrationId) throw new Error('tenant has no default listener or integration');
    return { listenerId, integrationId };
  }
}

/** Starts an emulator for the calling test file and closes it after the file. */
export async function startEmulator(options: ControlPlaneEmulatorOptions = {}): Promise<EmulatorClient> {
  const emulator = await startControlPlaneEmulator({ revisionPhaseMs: 0, rateLimit: 'off', ...options });
  afterAll(() => emulator.close());
  return new EmulatorClient(emulator);
}

export interface DeploymentBody {
  name: string;
  source: string;
  source_config: Record<string, unknown>;
  source_revision_config: Record<string, unknown>;
  secrets: { name: string; value: string }[];
}

let counter = 0;
export function uniqueName(prefix = 'agent'): string {
  counter++;
  return `${prefix}-${process.pid}-${counter}`;
}

export function repoHostBody(integrationId: string, overrides: Partial<DeploymentBody> = {}): DeploymentBody {
  return {
    name: uniqueName('repo'),
    source: 'repo_host',
    source_config: {
      integration_id: integrationId,
      repo_url: 'https://git.example/acme/agent',
      deployment_type: 'dev',
    },
    source_revision_config: { repo_ref: 'main', graph_config_path: 'graph.json' },
    secrets: [],
    ...overrides,
  };
}

export function containerBody(listenerId: string, overrides: Partial<DeploymentBody> = {}): DeploymentBody {
  return {
    name: uniqueName('image'),
    source: 'external_container',
    source_config: { listener_id: listenerId },
    source_revision_config: { image_uri: 'registry.example/agent:1' },
    secrets: [],
    ...overrides,
  };
}

export interface WireDeployment {
  id: string;
  name: string;
  tenant_id: string;
  status: string;
  created_at: string;
  updated_at: string;
  latest_revision_id: string | null;
  active_revision_id: string | null;
  source_config: Record<string, unknown> & { resource_spec: Record<string, unknown> | null };
  source_revision_config: Record<string, unknown>;
  secrets: { name: string; value: string }[];
}

export interface WireRevision {
  id: string;
  status: string;
  created_at: string;
  updated_at: string;
  source: string;
  source_revision_config: Record<string, unknown>;
}
