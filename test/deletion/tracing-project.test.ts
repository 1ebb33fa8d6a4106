// The tracing project end to end: the operator against the Kubernetes and control-plane
// emulators (the platform data API on the same address). An AgentDeployment records its
// project in status.tracingProject, the id the official langsmith SDK finds by name;
// tracingProjectDeletionPolicy Delete removes the project with the deployment, Retain (the
// default) keeps it; a TraceDeletion naming the project by its AgentDeployment deletes that
// project's traces and no other's.
import { Client } from 'langsmith';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRACE_DELETIONS } from '../../src/reconcilers/deletion/setup.js';
import { API_KEY, containerAgent, type AgentDeploymentObject, type Stack } from '../operator/harness.js';
import {
  createTraceDeletion,
  ingestTrace,
  isPhase,
  remainingTraces,
  startDeletionStack,
  waitForDeletion,
} from './stack.js';

type WithProject = AgentDeploymentObject & {
  status?: AgentDeploymentObject['status'] & { tracingProject?: { name: string; id: string } };
};

describe('the tracing project of an AgentDeployment', () => {
  let stack: Stack;
  let sdk: Client;
  let listenerId: string;

  beforeAll(async () => {
    stack = await startDeletionStack();
    sdk = new Client({ apiUrl: stack.controlPlane.url, apiKey: API_KEY, timeout_ms: 10_000 });
    listenerId = await stack.listenerId();
  });
  afterAll(() => stack.close());

  async function deployed(
    name: string,
    extra: Record<string, unknown> = {},
  ): Promise<{ name: string; id: string }> {
    await stack.apply(containerAgent(name, listenerId, extra));
    const object = (await stack.waitFor(
      name,
      (o) => (o as WithProject).status?.tracingProject !== undefined,
      'given a tracing project',
    )) as WithProject;
    return object.status?.tracingProject ?? { name: '', id: '' };
  }

  async function sdkProject(name: string): Promise<string | undefined> {
    try {
      return (await sdk.readProject({ projectName: name })).id;
    } catch (error) {
      if (error instanceof Error && /not found/i.test(error.message)) return undefined;
      throw error;
    }
  }

  async function deleteAndWait(name: string): Promise<void> {
    await stack.client.delete(
      { group: 'agentplatform.io', version: 'v1alpha1', plural: 'agentdeployments' },
      'team-a',
      name,
    );
    await stack.waitGone(name);
  }

  it('records status.tracingProject with the id the SDK finds by the deployment name', async () => {
    const project = await deployed('traced');
    expect(project.name).toBe('traced');
    expect(await sdkProject('traced')).toBe(project.id);
  });

  it('deletes the project with the deployment under tracingProjectDeletionPolicy Delete', async () => {
    const project = await deployed('dropped', { tracingProjectDeletionPolicy: 'Delete' });
    const trace = await ingestTrace(stack, 'dropped');
    await deleteAndWait('dropped');
    expect(await sdkProject('dropped')).toBeUndefined();
    expect(await remainingTraces(stack, project.id, [trace])).toEqual([]);
  });

  it('keeps the project and its traces by default (Retain)', async () => {
    const project = await deployed('kept');
    const trace = await ingestTrace(stack, 'kept');
    await deleteAndWait('kept');
    expect(await sdkProject('kept')).toBe(project.id);
    expect(await remainingTraces(stack, project.id, [trace])).toEqual([trace]);
  });

  it('a TraceDeletion by AgentDeployment reference deletes that project’s traces only', async () => {
    const alpha = await deployed('alpha');
    const beta = await deployed('beta');
    const alphaTrace = await ingestTrace(stack, 'alpha');
    const betaTrace = await ingestTrace(stack, 'beta');
    await createTraceDeletion(stack, 'by-reference', {
      agentDeploymentRef: { name: 'alpha' },
      traceIds: [alphaTrace, betaTrace],
    });
    const done = await waitForDeletion(stack, TRACE_DELETIONS, 'by-reference', isPhase('Completed'));
    expect(done.status?.tracesRemaining).toBe(0);
    expect(await remainingTraces(stack, alpha.id, [alphaTrace])).toEqual([]);
    expect(await remainingTraces(stack, beta.id, [betaTrace])).toEqual([betaTrace]);
  });

  it('admits exactly one of sessionId and agentDeploymentRef', async () => {
    await expect(
      createTraceDeletion(stack, 'both', {
        sessionId: crypto.randomUUID(),
        agentDeploymentRef: { name: 'alpha' },
        traceIds: [crypto.randomUUID()],
      }),
    ).rejects.toThrow(/exactly one form: one of sessionId or agentDeploymentRef/);
  });
});
