// Both emulators, each in its own child process started through the real CLI
// (`agent-operator emulate control-plane|kube`), with the CRD and the benchmark namespace
// applied. Each strategy of a benchmark gets a fresh pair, so no state or rate-limit
// window leaks from one run into the next.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { kubeClientFrom, loadKubeConfig } from '../../src/runtime/kube/kubeconfig.js';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import type { KubeConfigTransport } from '../../src/runtime/kube/transport.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import type { ResourceType } from '../../src/runtime/kube/resource.js';
import { ROOT, spawnTsNode, type NodeProcess } from './processes.js';

export const BENCH_API_KEY = 'bench-key-0123456789abcdef';
export const BENCH_NAMESPACE = 'bench';
const CRDS: ResourceType = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  namespaced: false,
};
export const NAMESPACES: ResourceType = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };

export interface EmulatorOptions {
  /** Time a revision spends in each state (external_container: 4 states before DEPLOYED). */
  revisionPhaseMs: number;
  /** `<count>/<seconds>` or `off`; default the published 1000/10. */
  rateLimit?: string;
  /** More `emulate control-plane` flags, e.g. ['--trace-delete-delay', '1h']. */
  controlPlaneFlags?: string[];
}

export class Emulators {
  private constructor(
    readonly controlPlaneUrl: string,
    private readonly adminToken: string,
    readonly kubeconfigPath: string,
    readonly kube: KubeClient,
    readonly controlPlaneProcess: NodeProcess,
    readonly kubeProcess: NodeProcess,
    private readonly transport: KubeConfigTransport,
    private readonly dir: string,
  ) {}

  static async start(options: EmulatorOptions): Promise<Emulators> {
    const dir = await mkdtemp(join(tmpdir(), 'agent-operator-bench-'));
    const kubeconfigPath = join(dir, 'kubeconfig');
    const cli = join(ROOT, 'src/dev-cli.ts');
    const adminToken = randomBytes(16).toString('hex');
    const controlPlaneProcess = spawnTsNode(
      cli,
      [
        'emulate',
        'control-plane',
        '--port',
        '0',
        '--api-key',
        BENCH_API_KEY,
        '--revision-phase-ms',
        String(options.revisionPhaseMs),
        '--rate-limit',
        options.rateLimit ?? '1000/10',
        ...(options.controlPlaneFlags ?? []),
      ],
      // In the environment, not on the command line, where `ps` would show it.
      { quietStderr: true, env: { AGENT_OPERATOR_ADMIN_TOKEN: adminToken } },
    );
    const kubeProcess = spawnTsNode(
      cli,
      ['emulate', 'kube', '--port', '0', '--write-kubeconfig', kubeconfigPath, '--log-level', 'silent'],
      { quietStderr: true },
    );
    const url = (line: string): string | undefined => /(http:\/\/\S+)/.exec(line)?.[1];
    const [controlPlaneUrl] = await Promise.all([
      controlPlaneProcess.waitForLine(url, 'the control-plane emulator URL'),
      kubeProcess.waitForLine(url, 'the kube emulator URL'),
    ]);
    const { client, transport } = kubeClientFrom(loadKubeConfig({ kind: 'file', path: kubeconfigPath }));
    await applyCrd(client, 'agentplatform.io_agentdeployments.yaml');
    await client.create(NAMESPACES, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: BENCH_NAMESPACE },
    });
    return new Emulators(
      controlPlaneUrl,
      adminToken,
      kubeconfigPath,
      client,
      controlPlaneProcess,
      kubeProcess,
      transport,
      dir,
    );
  }

  /** Applies another CRD of crds/ (by file name) to the Kubernetes emulator. */
  applyCrd(file: string): Promise<void> {
    return applyCrd(this.kube, file);
  }

  /** Calls the control-plane emulator's admin API (not rate limited, not counted). */
  async admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.controlPlaneUrl}/_emulator${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.adminToken}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`admin ${method} ${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** A call to the public API with the benchmark key (seeding, listener lookup). */
  async api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.controlPlaneUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-api-key': BENCH_API_KEY },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  async listenerId(): Promise<string> {
    const page = await this.api<{ resources: Array<{ id: string }> }>('GET', '/v2/listeners');
    const id = page.resources[0]?.id;
    if (!id) throw new Error('the control-plane emulator has no listener');
    return id;
  }

  async close(): Promise<void> {
    this.transport.close();
    await Promise.all([this.controlPlaneProcess.stop(), this.kubeProcess.stop()]);
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** Applies a CRD of crds/ (by file name) to a Kubernetes API. */
export async function applyCrd(kube: KubeClient, file: string): Promise<void> {
  const crd = yaml.load(await readFile(join(ROOT, 'crds', file), 'utf8')) as KubeObject;
  await kube.create(CRDS, crd);
}
