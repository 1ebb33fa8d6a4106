// A deployment's tracing project is a session of the platform data API served on the same
// address, as the official langsmith SDK (which nobody here wrote) finds it: by name, holding
// the traces sent to it, and gone with them when the deployment is deleted with
// delete_tracing_project=true. Deleted without it, the project and its traces stay.
import { Client, RunTree } from 'langsmith';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY, containerBody, startEmulator, type EmulatorClient, type WireDeployment } from './helpers.js';

let emulator: EmulatorClient;
let sdk: Client;
let listenerId: string;

// readRun warns once that it is deprecated (process.emitWarning): keep the output clean.
const deprecationShown = process.noDeprecation;
afterAll(() => {
  process.noDeprecation = deprecationShown;
});

beforeAll(async () => {
  process.noDeprecation = true;
  emulator = await startEmulator({ revisionPhaseMs: 0, rateLimit: 'off' });
  sdk = new Client({ apiUrl: emulator.url, apiKey: KEY, timeout_ms: 10_000 });
  ({ listenerId } = await emulator.defaults());
});

async function createDeployment(): Promise<WireDeployment> {
  const created = await emulator.call<WireDeployment>('POST', '/v2/deployments', {
    body: containerBody(listenerId),
  });
  expect(created.status).toBe(201);
  return created.body;
}

async function traceInto(project: string): Promise<string> {
  const root = new RunTree({
    name: 'agent',
    run_type: 'chain',
    inputs: { q: 'hi' },
    project_name: project,
    client: sdk,
  });
  await root.postRun();
  await root.end({ answer: 'hello' });
  await root.patchRun();
  await sdk.awaitPendingTraceBatches();
  return root.id;
}

async function projectNamed(name: string): Promise<{ id: string } | undefined> {
  try {
    return await sdk.readProject({ projectName: name });
  } catch (error) {
    if (error instanceof Error && /not found/i.test(error.message)) return undefined;
    throw error;
  }
}

describe('the tracing project of a deployment', () => {
  it('is found by name through the SDK, with the id the control plane recorded, and holds traces', async () => {
    const deployment = await createDeployment();
    const project = await projectNamed(deployment.name);
    const recorded = (
      await emulator.call<Array<{ id: string; name: string }>>('GET', '/_emulator/tracing-projects')
    ).body.find((p) => p.name === deployment.name);
    expect(project?.id).toBe(recorded?.id);
    const traceId = await traceInto(deployment.name);
    const run = await sdk.readRun(traceId);
    expect(run.session_id).toBe(project?.id);
  });

  it('goes with its traces on delete_tracing_project=true, and only that project', async () => {
    const doomed = await createDeployment();
    const neighbour = await createDeployment();
    const doomedTrace = await traceInto(doomed.name);
    const neighbourTrace = await traceInto(neighbour.name);
    const response = await emulator.call(
      'DELETE',
      `/v2/deployments/${doomed.id}?delete_tracing_project=true`,
    );
    expect(response.status).toBe(204);
    expect(await projectNamed(doomed.name)).toBeUndefined();
    const left = await emulator.call<Array<{ name: string }>>('GET', `/sessions?name=${doomed.name}`);
    expect(left.body).toEqual([]);
    await expect(sdk.readRun(doomedTrace)).rejects.toThrow(/not found/i);
    expect((await sdk.readRun(neighbourTrace)).id).toBe(neighbourTrace);
  });

  it('stays, with its traces, when the deployment is deleted without the flag (the default)', async () => {
    const deployment = await createDeployment();
    const project = await projectNamed(deployment.name);
    const traceId = await traceInto(deployment.name);
    expect((await emulator.call('DELETE', `/v2/deployments/${deployment.id}`)).status).toBe(204);
    expect((await projectNamed(deployment.name))?.id).toBe(project?.id);
    expect((await sdk.readRun(traceId)).id).toBe(traceId);
  });
});
