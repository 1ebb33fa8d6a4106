// The attacker suite for data deletion: team A's traces and examples (tagged {tenant: team-a})
// live in the workspace that the operator's default key and a platform team's
// ClusterPlatformConnection both reach. An attacker with edit rights in namespace team-b, which
// neither lets delete data, points every kind of deletion at A's data, through the default
// connection and through a ClusterPlatformConnection that serves team-b (namespaceSelector {})
// but has no dataDeletionNamespaceSelector: by A's metadata, by A's session and trace ids, by an
// example search with hardDelete, by A's example ids, and a dry run that would count A's
// traces. Each stays Pending, Stalled with DataDeletionNotAllowed naming the rule; the platform
// receives no delete call at all and not one read of the data; every trace and example of A is
// still there, with its data. Then the allowed paths delete the same data (the operator's own
// namespace through the default connection; a namespace the other connection's
// dataDeletionNamespaceSelector matches), so that a blanket refusal would fail this suite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_PLATFORM_CONNECTIONS } from '../../src/reconcilers/connection/setup.js';
import { EXAMPLE_DELETIONS, TRACE_DELETIONS } from '../../src/reconcilers/deletion/setup.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import type { ResourceType } from '../../src/runtime/kube/resource.js';
import { AGENT_DEPLOYMENTS } from '../../src/reconcilers/agentdeployment/setup.js';
import { API_KEY, EVENTS, NAMESPACE, SECRETS, containerAgent, type Stack } from '../operator/harness.js';
import { applyConnectionCrds } from '../connections/support/platform.js';
import {
  DATA_DELETE_ROUTES,
  DATA_READ_ROUTES,
  callsTo,
  createDataset,
  createExample,
  createExampleDeletion,
  createNamespace,
  createTraceDeletion,
  ingestTrace,
  isPhase,
  readExample,
  readTrace,
  sessionIdOf,
  startDeletionStack,
  stalledWith,
  waitForDeletion,
  type DeletionObject,
} from '../deletion/stack.js';

const ATTACKER = 'team-b';
/** Where the operator runs (the harness's leader-election namespace): the default allows it alone. */
const OPERATOR_NAMESPACE = 'default';
/** A namespace the erasure connection's dataDeletionNamespaceSelector matches. */
const PRIVACY = 'privacy';
const ERASURE_LABEL = { 'privacy.example.com/erasure': 'allowed' };
const TEAM_A = { tenant: 'team-a' };

const DEFAULT_RULE = `the default connection: namespace ${ATTACKER} may not delete data through it (the operator's --data-deletion-namespaces, Helm value dataDeletionNamespaces, allows ${OPERATOR_NAMESPACE})`;
const SHARED_RULE = `ClusterPlatformConnection shared: namespace ${ATTACKER} may not delete data through it: it has no dataDeletionNamespaceSelector (absent allows none; {} allows every namespace its namespaceSelector serves)`;

interface Victim {
  session: string;
  traces: string[];
  examples: string[];
}

interface Attack {
  name: string;
  type: ResourceType;
  spec: Record<string, unknown>;
}

/** Every deletion the attacker tries, through one connection (undefined: the default). */
function attacks(victim: Victim, via: 'default' | 'shared'): Attack[] {
  const connectionRef =
    via === 'shared' ? { connectionRef: { kind: 'ClusterPlatformConnection', name: 'shared' } } : {};
  const attack = (name: string, type: ResourceType, spec: Record<string, unknown>) => ({
    name: `${via}-${name}`,
    type,
    spec: { ...connectionRef, ...spec },
  });
  return [
    attack('traces-by-metadata', TRACE_DELETIONS, { metadata: TEAM_A }),
    attack('traces-by-id', TRACE_DELETIONS, { sessionId: victim.session, traceIds: victim.traces }),
    attack('traces-dry-run', TRACE_DELETIONS, { metadata: TEAM_A, dryRun: true }),
    attack('examples-by-search', EXAMPLE_DELETIONS, { search: { metadata: TEAM_A }, hardDelete: true }),
    attack('examples-by-id', EXAMPLE_DELETIONS, { exampleIds: victim.examples, hardDelete: true }),
  ];
}

async function clusterConnection(stack: Stack, name: string, extra: Record<string, unknown>): Promise<void> {
  await stack.client.create(CLUSTER_PLATFORM_CONNECTIONS, {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'ClusterPlatformConnection',
    metadata: { name },
    spec: {
      controlPlaneUrl: stack.controlPlane.url,
      platformApiUrl: stack.controlPlane.url,
      apiKeySecretRef: { name: 'platform-team-key', key: 'apiKey' },
      namespaceSelector: {},
      ...extra,
    },
  });
}

async function connectionReady(stack: Stack, name: string): Promise<boolean> {
  const connection = await stack.client.get<
    KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }
  >(CLUSTER_PLATFORM_CONNECTIONS, undefined, name);
  return connection.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** Every trace and example of A reads back with the data it was made with. */
async function expectVictimIntact(stack: Stack, victim: Victim): Promise<void> {
  for (const id of victim.traces) {
    const read = await readTrace(stack, id);
    expect(read.status, `trace ${id}`).toBe(200);
    expect(read.body).toMatchObject({ inputs: { question: 'hi' }, extra: { metadata: TEAM_A } });
  }
  for (const id of victim.examples) {
    const read = await readExample(stack, id);
    expect(read.status, `example ${id}`).toBe(200);
    expect(read.body).toMatchObject({
      inputs: { question: 'what is 2 + 2?' },
      outputs: { answer: '4' },
      metadata: TEAM_A,
    });
  }
}

describe('an attacker in a namespace not allowed to delete data', () => {
  let stack: Stack;
  let victim: Victim;

  beforeAll(async () => {
    stack = await startDeletionStack({
      // The operator's own default: only its namespace may delete through its key.
      operator: { dataDeletionNamespaces: undefined },
      beforeOperator: async (created) => {
        await applyConnectionCrds(created.client);
        await createNamespace(created, ATTACKER);
        await createNamespace(created, PRIVACY, ERASURE_LABEL);
        // The platform team's key for the whole workspace, where cluster connections read theirs.
        await created.client.create(SECRETS, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'platform-team-key', namespace: OPERATOR_NAMESPACE },
          data: { apiKey: Buffer.from(API_KEY).toString('base64') },
        });
        await clusterConnection(created, 'shared', {});
        await clusterConnection(created, 'erasure', {
          dataDeletionNamespaceSelector: { matchLabels: ERASURE_LABEL },
        });
      },
    });
    await stack.waitUntil(
      async () => (await connectionReady(stack, 'shared')) && (await connectionReady(stack, 'erasure')),
      'both ClusterPlatformConnections are Ready',
    );
    const traces: string[] = [];
    for (let i = 0; i < 3; i += 1) traces.push(await ingestTrace(stack, 'team-a-agent', TEAM_A));
    const dataset = await createDataset(stack, 'team-a-evals');
    const examples: string[] = [];
    for (let i = 0; i < 3; i += 1) examples.push(await createExample(stack, dataset, TEAM_A));
    victim = { session: await sessionIdOf(stack, 'team-a-agent'), traces, examples };
  });
  afterAll(() => stack.close());

  it('cannot delete, count or verify team A’s data through the default connection or a connection without dataDeletionNamespaceSelector', async () => {
    const readsBefore = await callsTo(stack, DATA_READ_ROUTES);
    const all = [...attacks(victim, 'default'), ...attacks(victim, 'shared')];
    for (const { name, type, spec } of all) {
      const create = type === TRACE_DELETIONS ? createTraceDeletion : createExampleDeletion;
      await create(stack, { namespace: ATTACKER, name }, spec);
    }
    for (const { name, type } of all) {
      const object: DeletionObject = await waitForDeletion(
        stack,
        type,
        { namespace: ATTACKER, name },
        stalledWith('DataDeletionNotAllowed'),
      );
      expect(object.status?.phase, name).toBe('Pending');
      expect(object.status?.message, name).toBe(name.startsWith('default-') ? DEFAULT_RULE : SHARED_RULE);
    }

    expect(await callsTo(stack, DATA_DELETE_ROUTES)).toBe(0);
    expect(await callsTo(stack, DATA_READ_ROUTES)).toBe(readsBefore);
    await expectVictimIntact(stack, victim);

    const events = await stack.client.list<
      KubeObject & { reason?: string; type?: string; regarding?: { name?: string } }
    >(EVENTS, { namespace: ATTACKER });
    for (const { name } of all) {
      const about = events.items.filter((event) => event.regarding?.name === name);
      expect(
        about.map((event) => [event.type, event.reason]),
        name,
      ).toEqual([['Warning', 'DataDeletionNotAllowed']]);
    }
    const everything = [
      ...stack.logLines,
      JSON.stringify(await stack.client.list(TRACE_DELETIONS, { namespace: ATTACKER })),
      JSON.stringify(await stack.client.list(EXAMPLE_DELETIONS, { namespace: ATTACKER })),
      JSON.stringify(events),
    ].join('\n');
    expect(everything).not.toContain(API_KEY);
  });

  it('lets the namespaces the rules allow delete the same data', async () => {
    // The operator's own namespace, through the default connection: A's examples by id.
    const examplesRef = { namespace: OPERATOR_NAMESPACE, name: 'erase-team-a-examples' };
    await createExampleDeletion(stack, examplesRef, { exampleIds: victim.examples, hardDelete: true });
    const examples = await waitForDeletion(stack, EXAMPLE_DELETIONS, examplesRef, isPhase('Completed'));
    expect(examples.status).toMatchObject({ deleted: victim.examples.length, verified: true });
    for (const id of victim.examples) expect((await readExample(stack, id)).status).toBe(404);

    // A namespace the erasure connection's dataDeletionNamespaceSelector matches: A's traces.
    const tracesRef = { namespace: PRIVACY, name: 'erase-team-a-traces' };
    await createTraceDeletion(stack, tracesRef, {
      connectionRef: { kind: 'ClusterPlatformConnection', name: 'erasure' },
      metadata: TEAM_A,
      maxMatches: 10,
    });
    const traces = await waitForDeletion(stack, TRACE_DELETIONS, tracesRef, isPhase('Completed'));
    expect(traces.status).toMatchObject({ matched: victim.traces.length, tracesRemaining: 0 });
    for (const id of victim.traces) expect((await readTrace(stack, id)).status).toBe(404);
    expect(await callsTo(stack, DATA_DELETE_ROUTES)).toBe(2);

    // The attacker's objects are where they were: refused, with nothing sent on their behalf.
    const refused = await waitForDeletion(
      stack,
      TRACE_DELETIONS,
      { namespace: ATTACKER, name: 'shared-traces-by-metadata' },
      stalledWith('DataDeletionNotAllowed'),
    );
    expect(refused.status?.phase).toBe('Pending');
  });
});

// A namespace that may delete its own traces through the default connection, in the workspace
// team A's deployment shares, names team A's tracing project by AgentDeployment reference:
// across namespaces, through its own object with a forged status.tracingProject, and through
// its own object named after team A's deployment. Each ends without a single delete request,
// and team A's traces are still there.
describe('an attacker naming a tracing project by AgentDeployment reference', () => {
  let stack: Stack;
  let project: { name: string; id: string };
  let traces: string[];

  beforeAll(async () => {
    stack = await startDeletionStack({
      operator: { dataDeletionNamespaces: [NAMESPACE, ATTACKER] },
      beforeOperator: (created) => createNamespace(created, ATTACKER).then(() => undefined),
    });
    await stack.apply(containerAgent('victim', await stack.listenerId()));
    const victim = await stack.waitFor(
      'victim',
      (o) => (o.status as { tracingProject?: unknown } | undefined)?.tracingProject !== undefined,
      'given a tracing project',
    );
    project = (victim.status as { tracingProject: { name: string; id: string } }).tracingProject;
    traces = [await ingestTrace(stack, 'victim', TEAM_A), await ingestTrace(stack, 'victim', TEAM_A)];
  });
  afterAll(() => stack.close());

  /** The attacker's own AgentDeployment, suspended (it never deploys), with a status it wrote itself. */
  async function forgedAgent(name: string, spec: Record<string, unknown>, forged: unknown): Promise<void> {
    const object = containerAgent(name, await stack.listenerId(), { suspend: true, ...spec });
    await stack.client.create(AGENT_DEPLOYMENTS, { ...object, metadata: { name, namespace: ATTACKER } });
    await stack.client.mergePatchStatus(AGENT_DEPLOYMENTS, ATTACKER, name, {
      status: { tracingProject: forged },
    });
  }

  async function attack(
    name: string,
    agent: string,
    outcome: (o: DeletionObject) => boolean,
  ): Promise<DeletionObject> {
    const deletesBefore = await callsTo(stack, DATA_DELETE_ROUTES);
    await createTraceDeletion(
      stack,
      { namespace: ATTACKER, name },
      { agentDeploymentRef: { name: agent }, traceIds: traces },
    );
    const ended = await waitForDeletion(stack, TRACE_DELETIONS, { namespace: ATTACKER, name }, outcome);
    expect(await callsTo(stack, DATA_DELETE_ROUTES)).toBe(deletesBefore);
    for (const id of traces) expect((await readTrace(stack, id)).status, `trace ${id}`).toBe(200);
    return ended;
  }

  it('does not resolve an AgentDeployment of another namespace', async () => {
    const ended = await attack('other-namespace', 'victim', stalledWith('AgentDeploymentNotFound'));
    expect(ended.status?.phase).toBe('Pending');
  });

  it('refuses its own AgentDeployment whose status names another project’s id', async () => {
    await forgedAgent('mine', {}, { name: 'mine', id: project.id });
    const ended = await attack('forged-id', 'mine', isPhase('Failed'));
    expect(ended.status?.conditions?.find((c) => c.type === 'Stalled')?.reason).toBe(
      'TracingProjectMismatch',
    );
  });

  it('refuses its own AgentDeployment named after team A’s deployment', async () => {
    await forgedAgent('copycat', { name: 'victim' }, project);
    const ended = await attack('copycat', 'copycat', isPhase('Failed'));
    expect(ended.status?.conditions?.find((c) => c.type === 'Stalled')?.reason).toBe(
      'TracingProjectAmbiguous',
    );
  });
});
