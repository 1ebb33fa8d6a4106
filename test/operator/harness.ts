// Both emulators in this process, the CRD applied, and the operator started the way
// `agent-operator run` starts it, talking to them over HTTP through the real client
// libraries. Everything the operator logs is captured, to check that no secret leaks.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import yaml from 'js-yaml';
import { createLogger } from '../../src/observability/logger.js';
import type { OperatorConfig } from '../../src/operator/config.js';
import { AGENT_DEPLOYMENTS, startOperator, type RunningOperator } from '../../src/operator/operator.js';
import type { ReconcilerTimings } from '../../src/reconcilers/agentdeployment/defaults.js';
import {
  kubeClientFrom,
  loadClusterAccess,
  type ClusterAccess,
} from '../../src/runtime/kube/cluster-access.js';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import { isNotFound } from '../../src/runtime/kube/errors.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import type { ResourceType } from '../../src/runtime/kube/resource.js';
import {
  startControlPlaneEmulator,
  type ControlPlaneEmulator,
  type ControlPlaneEmulatorOptions,
} from '../../src/sim/controlplane/index.js';
import { startKubeEmulator, type KubeEmulator } from '../../src/sim/kube/index.js';
import type { Deployment } from '../../src/controlplane/models/index.js';

export const API_KEY = 'harness-key-0123456789';
export const NAMESPACE = 'team-a';
const CRD_FILE = new URL('../../crds/agentplatform.io_agentdeployments.yaml', import.meta.url);
const CRDS: ResourceType = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  namespaced: false,
};
const NAMESPACES: ResourceType = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };
export const SECRETS: ResourceType = { group: '', version: 'v1', plural: 'secrets' };
export const EVENTS: ResourceType = { group: 'events.k8s.io', version: 'v1', plural: 'events' };

export type AgentDeploymentObject = KubeObject & {
  spec: Record<string, unknown>;
  status?: {
    observedGeneration?: number;
    conditions?: Array<{
      type: string;
      status: string;
      reason: string;
      message: string;
      observedGeneration?: number;
    }>;
    deploymentId?: string;
    activeRevisionId?: string;
    latestRevisionId?: string;
    latestRevisionStatus?: string;
    deploymentStatus?: string;
    ownership?: { uid: string; deploymentId?: string; createRequestedAt?: string };
    lastHandledRedeployAt?: string;
    lastHandledReconcileAt?: string;
    secretVersions?: Array<{ name: string; resourceVersion: string }>;
  };
};

/** The controller name the AgentDeployment controller's metrics carry. */
const AGENT_DEPLOYMENT_CONTROLLER = 'agentdeployment';

export interface ReconcileWait {
  /** A reconcileMark() taken before the change; by default, the mark at the call. */
  since?: number;
  operator?: RunningOperator;
  timeoutMs?: number;
}

export interface StackOptions {
  controlPlane?: ControlPlaneEmulatorOptions;
  operator?: Partial<OperatorConfig>;
  reconciler?: Partial<ReconcilerTimings>;
  /** Do not start an operator (tests that start their own). */
  withoutOperator?: boolean;
}

/** An events.k8s.io/v1 Event as the tests read it. */
export interface RecordedEvent {
  reason?: string;
  note?: string;
  type?: string;
  regarding?: { name?: string };
}

export class Stack {
  readonly logLines: string[] = [];
  operators: RunningOperator[] = [];

  private constructor(
    readonly controlPlane: ControlPlaneEmulator,
    readonly kube: KubeEmulator,
    readonly kubeConfig: ClusterAccess,
    readonly client: KubeClient,
    private readonly dir: string,
    private readonly options: StackOptions,
  ) {}

  static async start(options: StackOptions = {}): Promise<Stack> {
    const controlPlane = await startControlPlaneEmulator({
      apiKeys: [{ key: API_KEY }],
      revisionPhaseMs: 20,
      ...options.controlPlane,
    });
    const dir = await mkdtemp(join(tmpdir(), 'agent-operator-test-'));
    const kube = await startKubeEmulator({
      kubeconfigPath: join(dir, 'kubeconfig'),
      bookmarkIntervalMs: 200,
    });
    const kubeConfig = await loadClusterAccess({ kind: 'file', path: kube.kubeconfigPath ?? '' });
    const { client } = kubeClientFrom(kubeConfig);
    const crd = yaml.load(await readFile(CRD_FILE, 'utf8')) as KubeObject;
    await client.create(CRDS, crd);
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    const stack = new Stack(controlPlane, kube, kubeConfig, client, dir, options);
    if (!options.withoutOperator) await stack.startOperator();
    return stack;
  }

  async startOperator(overrides: Partial<OperatorConfig> = {}, identity?: string): Promise<RunningOperator> {
    const sink = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        this.logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    const config: OperatorConfig = {
      region: 'us',
      controlPlaneUrl: this.controlPlane.url,
      apiKey: API_KEY,
      namespaces: [],
      concurrency: 4,
      resyncPeriodMs: 60_000,
      pollIntervalMs: 100,
      leaderElect: false,
      leaderElectionNamespace: 'default',
      leaderElectionId: 'agent-operator',
      metricsBindAddress: { host: '127.0.0.1', port: 0 },
      logLevel: 'debug',
      // The emulators listen on loopback: PlatformConnections and agent URLs point there.
      allowPrivateNetworks: true,
      ...this.options.operator,
      ...overrides,
    };
    const operator = await startOperator({
      config,
      logger: createLogger({ level: 'debug', destination: sink }),
      kubeConfig: this.kubeConfig,
      identity,
      serveHttp: false,
      reconciler: { minRevisionPollMs: 50, deletionPollMs: 50, ...this.options.reconciler },
    });
    this.operators.push(operator);
    return operator;
  }

  async admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.controlPlane.url}/_emulator${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${this.controlPlane.adminToken}`,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`admin ${method} ${path}: ${response.status} ${await response.text()}`);
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** A call to the control plane's public API with the harness key (what a user or CI would do). */
  async api<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${this.controlPlane.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  /** Every deployment, secret values included (read in process: the admin dump masks them). */
  deployments(): Promise<Deployment[]> {
    return Promise.resolve(this.controlPlane.deployments() as unknown as Deployment[]);
  }

  async listenerId(): Promise<string> {
    const { body } = await this.api<{ resources: Array<{ id: string }> }>('GET', '/v2/listeners');
    const id = body.resources[0]?.id;
    if (!id) throw new Error('the emulator has no listener');
    return id;
  }

  apply(object: AgentDeploymentObject): Promise<AgentDeploymentObject> {
    return this.client.create(AGENT_DEPLOYMENTS, object);
  }

  get(name: string): Promise<AgentDeploymentObject> {
    return this.client.get<AgentDeploymentObject>(AGENT_DEPLOYMENTS, NAMESPACE, name);
  }

  async patchSpec(name: string, spec: Record<string, unknown>): Promise<AgentDeploymentObject> {
    return this.client.mergePatch<AgentDeploymentObject>(AGENT_DEPLOYMENTS, NAMESPACE, name, { spec });
  }

  async putSecret(name: string, data: Record<string, string>): Promise<void> {
    const encoded = Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
    );
    try {
      await this.client.mergePatch(SECRETS, NAMESPACE, name, { data: encoded });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      await this.client.create(SECRETS, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace: NAMESPACE },
        data: encoded,
      });
    }
  }

  async waitFor(
    name: string,
    predicate: (object: AgentDeploymentObject) => boolean,
    what: string,
    timeoutMs = 20_000,
  ): Promise<AgentDeploymentObject> {
    const deadline = Date.now() + timeoutMs;
    let last: AgentDeploymentObject | undefined;
    while (Date.now() < deadline) {
      try {
        last = await this.get(name);
        if (predicate(last)) return last;
      } catch {
        // not there yet (or gone): keep waiting
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(
      `timed out waiting for ${name} to be ${what}; last status: ${JSON.stringify(last?.status)}`,
    );
  }

  async waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`timed out waiting until ${what}`);
  }

  /** Waits until the API server answers NotFound for the object; any other error fails the wait. */
  async waitGone(name: string, timeoutMs = 20_000): Promise<void> {
    await this.waitUntil(
      async () => {
        try {
          await this.get(name);
          return false;
        } catch (error) {
          if (isNotFound(error)) return true;
          throw error;
        }
      },
      `${name} is gone`,
      timeoutMs,
    );
  }

  /** A metric of the AgentDeployment controller of `operator` (the newest by default). */
  private async controllerMetric(name: string, operator: RunningOperator | undefined): Promise<number> {
    if (!operator) throw new Error('no operator is running');
    const found = (await operator.registry.getMetricsAsJSON()).find((metric) => metric.name === name);
    const values = (found?.values ?? []) as Array<{ value: number; labels: Record<string, string | number> }>;
    return values
      .filter((value) => value.labels['controller'] === AGENT_DEPLOYMENT_CONTROLLER)
      .reduce((sum, value) => sum + value.value, 0);
  }

  /**
   * A mark to count reconciles from: those finished so far plus those running now, so that
   * only reconciles which begin after the mark reach past it.
   */
  async reconcileMark(operator: RunningOperator | undefined = this.operators.at(-1)): Promise<number> {
    const running = await this.controllerMetric('controller_runtime_active_workers', operator);
    return running + (await this.controllerMetric('controller_runtime_reconcile_total', operator));
  }

  /**
   * Waits until the operator has finished `count` reconciles that began after `since` (by
   * default: after this call). This is the wait that must come before any "nothing happened"
   * assertion, which otherwise passes without the operator having looked at all. Take the
   * mark before the change when nothing but the change wakes the object (a Stalled object).
   */
  async waitForReconciles(
    count: number,
    what: string,
    { since, operator = this.operators.at(-1), timeoutMs = 20_000 }: ReconcileWait = {},
  ): Promise<void> {
    const target = (since ?? (await this.reconcileMark(operator))) + count;
    await this.waitUntil(
      async () => (await this.controllerMetric('controller_runtime_reconcile_total', operator)) >= target,
      `${count} reconciles (${what})`,
      timeoutMs,
    );
  }

  async events(name?: string): Promise<RecordedEvent[]> {
    const list = await this.client.list<KubeObject & RecordedEvent>(EVENTS, { namespace: NAMESPACE });
    return list.items.filter((event) => name === undefined || event.regarding?.name === name);
  }

  /**
   * Waits until the events about `name` satisfy `ready`, and returns them. Events are recorded
   * after the action they report and without holding up the reconcile, so a test that has just
   * seen the action (a status, a deployment, a ConfigMap) may read the events a moment early.
   */
  async eventsOnce(
    name: string,
    ready: (events: RecordedEvent[]) => boolean,
    what: string,
    timeoutMs = 20_000,
  ): Promise<RecordedEvent[]> {
    let seen: RecordedEvent[] = [];
    await this.waitUntil(
      async () => ready((seen = await this.events(name))),
      `the events of ${name} show ${what}`,
      timeoutMs,
    );
    return seen;
  }

  /** Waits until at least one event about `name` has `reason`, and returns those events. */
  async eventsWithReason(name: string, reason: string, timeoutMs = 20_000): Promise<RecordedEvent[]> {
    const seen = await this.eventsOnce(
      name,
      (events) => events.some((event) => event.reason === reason),
      reason,
      timeoutMs,
    );
    return seen.filter((event) => event.reason === reason);
  }

  async close(): Promise<void> {
    await Promise.all(this.operators.map((operator) => operator.stop()));
    await this.kube.close();
    await this.controlPlane.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}

export function condition(
  object: AgentDeploymentObject,
  type: string,
): { status: string; reason: string; message: string } | undefined {
  return object.status?.conditions?.find((c) => c.type === type);
}

export function isReady(object: AgentDeploymentObject): boolean {
  return (
    condition(object, 'Ready')?.status === 'True' &&
    object.status?.observedGeneration === object.metadata.generation
  );
}

export function containerAgent(
  name: string,
  listenerId: string,
  extra: Record<string, unknown> = {},
): AgentDeploymentObject {
  return {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      source: 'external_container',
      sourceConfig: {
        listenerId,
        resourceSpec: {
          cpu: 0.5,
          memoryMb: 512,
          volumes: [{ name: 'cache', emptyDir: {} }],
          volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
          sidecars: [{ name: 'proxy', image: 'envoyproxy/envoy:v1.31', restartPolicy: 'Always' }],
        },
      },
      sourceRevisionConfig: { imageUri: 'registry.example/agent:1' },
      ...extra,
    },
  };
}
