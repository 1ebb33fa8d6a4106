// A stack for the deletion controllers: the operator harness (both emulators) with the deletion
// CRDs applied, and helpers to seed traces through the platform API over HTTP, to count the
// emulator's delete requests and to follow a deletion's phases.
import { readFile } from 'node:fs/promises';
import yaml from 'js-yaml';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import type { ResourceType } from '../../src/runtime/kube/resource.js';
import type { OperatorConfig } from '../../src/operator/config.js';
import { EXAMPLE_DELETIONS, TRACE_DELETIONS } from '../../src/reconcilers/deletion/setup.js';
import { API_KEY, NAMESPACE, Stack } from '../operator/harness.js';
import { oneTraceBatch } from '../platform-emulator/helpers.js';

const CRDS: ResourceType = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  namespaced: false,
};
const DELETION_CRD_FILES = ['agentplatform.io_tracedeletions.yaml', 'agentplatform.io_exampledeletions.yaml'];

export type DeletionObject = KubeObject & {
  spec: Record<string, unknown>;
  status?: Record<string, unknown> & {
    phase?: string;
    batchesSent?: number;
    batchesTotal?: number;
    tracesRemaining?: number;
    conditions?: Array<{ type: string; status: string; reason: string; message: string }>;
  };
};

export { NAMESPACE };

/** The platform route of trace deletes, as the emulator's stats name it. */
export const DELETE_ROUTE = '/runs/delete';

export const isPhase = (phase: string) => (object: DeletionObject) => object.status?.phase === phase;

export async function startDeletionStack(
  options: {
    traceDeleteDelayMs?: number;
    operator?: Partial<OperatorConfig>;
    /** Keys the emulator accepts besides the harness key. */
    moreApiKeys?: string[];
    /** Runs before the operator starts (more CRDs, objects). */
    beforeOperator?: (stack: Stack) => Promise<void>;
  } = {},
): Promise<Stack> {
  const stack = await Stack.start({
    withoutOperator: true,
    controlPlane: {
      traceDeleteDelayMs: options.traceDeleteDelayMs ?? 0,
      apiKeys: [API_KEY, ...(options.moreApiKeys ?? [])].map((key) => ({ key })),
    },
    // The test namespace deletes through the default connection, as a platform team that
    // listed it in --data-deletion-namespaces would have it.
    operator: { deletionVerifyIntervalMs: 100, dataDeletionNamespaces: [NAMESPACE], ...options.operator },
  });
  await applyDeletionCrds(stack.client);
  await options.beforeOperator?.(stack);
  await stack.startOperator();
  return stack;
}

/** Creates the TraceDeletion and ExampleDeletion CRDs from crds/. */
export async function applyDeletionCrds(client: KubeClient): Promise<void> {
  for (const file of DELETION_CRD_FILES) {
    const crd = yaml.load(
      await readFile(new URL(`../../crds/${file}`, import.meta.url), 'utf8'),
    ) as KubeObject;
    await client.create(CRDS, crd);
  }
}

/** One trace (a root run) in the named session, through the platform API's JSON batch ingest. */
export async function ingestTrace(
  stack: Stack,
  sessionName: string,
  metadata: Record<string, string> = {},
): Promise<string> {
  const id = crypto.randomUUID();
  const response = await stack.api('POST', '/runs/batch', oneTraceBatch(id, sessionName, metadata));
  if (response.status !== 202) throw new Error(`ingest failed: ${response.status}`);
  return id;
}

export async function sessionIdOf(stack: Stack, name: string): Promise<string> {
  const response = await stack.api<Array<{ id: string }>>(
    'GET',
    `/sessions?name=${encodeURIComponent(name)}`,
  );
  const id = response.body[0]?.id;
  if (id === undefined) throw new Error(`no session named ${name}`);
  return id;
}

/**
 * The traces of `ids` the run query still finds in the session. The route's rate row (15 per
 * 10 s per key) is shared with the operator's verification: a 429 is waited out.
 */
export async function remainingTraces(stack: Stack, session: string, ids: string[]): Promise<string[]> {
  for (;;) {
    const response = await stack.api<{ runs: Array<{ trace_id: string }> }>('POST', '/api/v1/runs/query', {
      session: [session],
      id: ids,
      is_root: true,
      limit: 100,
    });
    if (response.status === 200) return response.body.runs.map((run) => run.trace_id);
    if (response.status !== 429) throw new Error(`run query failed: ${response.status}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Requests the emulator answered on a platform route template, by status class. */
export async function requestCounts(
  stack: Stack,
  route: string,
): Promise<{ accepted: number; throttled: number }> {
  const stats = await stack.admin<{ byRoute: Array<{ route: string; status: number; count: number }> }>(
    'GET',
    '/stats',
  );
  const rows = stats.byRoute.filter((row) => row.route === route);
  const sum = (predicate: (status: number) => boolean) =>
    rows.filter((row) => predicate(row.status)).reduce((total, row) => total + row.count, 0);
  return { accepted: sum((status) => status < 300), throttled: sum((status) => status === 429) };
}

interface RouteRef {
  method: string;
  route: string;
}

/** Every platform route that deletes data (traces, examples), as the emulator's stats name them. */
export const DATA_DELETE_ROUTES: readonly RouteRef[] = [
  { method: 'POST', route: DELETE_ROUTE },
  { method: 'POST', route: '/v1/platform/datasets/examples/delete' },
  { method: 'DELETE', route: '/examples' },
  { method: 'DELETE', route: '/examples/{example_id}' },
];

/** The platform routes a deletion reads the workspace's data with (to count or verify). */
export const DATA_READ_ROUTES: readonly RouteRef[] = [
  { method: 'POST', route: '/runs/query' },
  { method: 'GET', route: '/examples' },
];

/** Requests the emulator received on any of `routes`, whatever it answered. */
export async function callsTo(stack: Stack, routes: readonly RouteRef[]): Promise<number> {
  const stats = await stack.admin<{ byRoute: Array<RouteRef & { count: number }> }>('GET', '/stats');
  return stats.byRoute
    .filter((row) => routes.some((route) => route.method === row.method && route.route === row.route))
    .reduce((total, row) => total + row.count, 0);
}

const NAMESPACES: ResourceType = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };

export function createNamespace(stack: Stack, name: string, labels: Record<string, string> = {}) {
  return stack.client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
}

/** Stalled=True with `reason`: blocked or failed, and why. */
export const stalledWith = (reason: string) => (object: DeletionObject) =>
  object.status?.conditions?.some(
    (c) => c.type === 'Stalled' && c.status === 'True' && c.reason === reason,
  ) ?? false;

/** A dataset, through the platform API. */
export async function createDataset(stack: Stack, name: string): Promise<string> {
  const response = await stack.api<{ id: string }>('POST', '/datasets', { name });
  if (response.status >= 300) throw new Error(`dataset create failed: ${response.status}`);
  return response.body.id;
}

/** One example with fixed inputs and outputs, through the platform API. */
export async function createExample(
  stack: Stack,
  datasetId: string,
  metadata: Record<string, string>,
  createdAt?: Date,
): Promise<string> {
  const response = await stack.api<{ id: string }>('POST', '/examples', {
    dataset_id: datasetId,
    inputs: { question: 'what is 2 + 2?' },
    outputs: { answer: '4' },
    metadata,
    ...(createdAt === undefined ? {} : { created_at: createdAt.toISOString() }),
  });
  if (response.status >= 300) throw new Error(`example create failed: ${response.status}`);
  return response.body.id;
}

export interface ExampleWire {
  id: string;
  inputs: Record<string, unknown> | null;
  outputs?: Record<string, unknown> | null;
  metadata: Record<string, unknown> | null;
}

/** An example as the platform API reads it now, or as of an earlier time. */
export function readExample(
  stack: Stack,
  id: string,
  asOf?: Date,
): Promise<{ status: number; body: ExampleWire }> {
  const query = asOf === undefined ? '' : `?as_of=${encodeURIComponent(asOf.toISOString())}`;
  return stack.api<ExampleWire>('GET', `/examples/${id}${query}`);
}

/** A trace's root run as the platform API reads it. */
export function readTrace(
  stack: Stack,
  id: string,
): Promise<{ status: number; body: { id: string; inputs?: unknown; extra?: { metadata?: unknown } } }> {
  return stack.api('GET', `/runs/${id}`);
}

const CONFIG_MAPS: ResourceType = { group: '', version: 'v1', plural: 'configmaps' };

/** A ConfigMap in the test namespace whose `key` holds the ids, one per line. */
export function createIdsConfigMap(stack: Stack, name: string, ids: readonly string[], key = 'ids') {
  return stack.client.create(CONFIG_MAPS, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: NAMESPACE },
    data: { [key]: `${ids.join('\n')}\n` },
  });
}

/** Where a deletion lives: a name in the test namespace, or a name in another namespace. */
export type DeletionRef = string | { namespace: string; name: string };

function refOf(ref: DeletionRef): { namespace: string; name: string } {
  return typeof ref === 'string' ? { namespace: NAMESPACE, name: ref } : ref;
}

export function createTraceDeletion(
  stack: Stack,
  ref: DeletionRef,
  spec: Record<string, unknown>,
): Promise<DeletionObject> {
  return stack.client.create<DeletionObject>(TRACE_DELETIONS, {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'TraceDeletion',
    metadata: refOf(ref),
    spec,
  });
}

export function createExampleDeletion(
  stack: Stack,
  ref: DeletionRef,
  spec: Record<string, unknown>,
): Promise<DeletionObject> {
  return stack.client.create<DeletionObject>(EXAMPLE_DELETIONS, {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'ExampleDeletion',
    metadata: refOf(ref),
    spec,
  });
}

/**
 * As after a crash: with no operator running, the TraceDeletion is created with `batchesSent`
 * recorded (of `batchesTotal`), then an operator starts and resumes it. Returns the delete
 * requests it sent by the time the deletion reached `phase`, and the object then.
 */
export async function resumeAfterRecordedBatches(
  stack: Stack,
  name: string,
  spec: Record<string, unknown>,
  recorded: { batchesSent: number; batchesTotal: number },
  phase: string,
): Promise<{ sent: number; object: DeletionObject }> {
  await Promise.all(stack.operators.map((operator) => operator.stop()));
  await createTraceDeletion(stack, name, spec);
  await stack.client.mergePatchStatus(TRACE_DELETIONS, NAMESPACE, name, {
    status: { phase: 'Submitting', ...recorded },
  });
  const before = await requestCounts(stack, DELETE_ROUTE);
  await stack.startOperator();
  const object = await waitForDeletion(stack, TRACE_DELETIONS, name, isPhase(phase));
  return { sent: (await requestCounts(stack, DELETE_ROUTE)).accepted - before.accepted, object };
}

/** Polls the object until `predicate` holds; every phase seen on the way is collected. */
export async function waitForDeletion(
  stack: Stack,
  type: ResourceType,
  ref: DeletionRef,
  predicate: (object: DeletionObject) => boolean,
  phasesSeen: string[] = [],
  timeoutMs = 20_000,
): Promise<DeletionObject> {
  const { namespace, name } = refOf(ref);
  const deadline = Date.now() + timeoutMs;
  let last: DeletionObject | undefined;
  while (Date.now() < deadline) {
    last = await stack.client.get<DeletionObject>(type, namespace, name);
    const phase = last.status?.phase;
    if (phase !== undefined && phasesSeen.at(-1) !== phase) phasesSeen.push(phase);
    if (predicate(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${name}; last status: ${JSON.stringify(last?.status)}`);
}

export function randomIds(count: number): string[] {
  return Array.from({ length: count }, () => crypto.randomUUID());
}

/** `total` ids, real ones first in consecutive batches of 1000 (one per batch), the rest random. */
export function idsWithOnePerBatch(real: readonly string[], total: number): string[] {
  const ids = randomIds(total);
  real.forEach((id, batch) => {
    ids[batch * 1000] = id;
  });
  return ids;
}
