// A run of a deployed agent is traced in the deployment's tracing project, as the hosted
// runtime does: the official langsmith SDK finds the trace in the project of the deployment's
// name, with the run's metadata (so a TraceDeletion by metadata reaches agent runs too).
import { Client as TracingClient } from 'langsmith';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireDeployment } from '../controlplane-emulator/helpers.js';
import {
  KEY,
  agentUrlOf,
  sdkClient,
  startRuntimeFixture,
  userInput,
  type RuntimeFixture,
} from './helpers.js';

let fixture: RuntimeFixture;
let deployment: WireDeployment;
let tracing: TracingClient;

// listRuns warns once that it is deprecated (process.emitWarning): keep the output clean.
const deprecationShown = process.noDeprecation;
afterAll(() => {
  process.noDeprecation = deprecationShown;
});

beforeAll(async () => {
  process.noDeprecation = true;
  fixture = await startRuntimeFixture({ revisionPhaseMs: 0 });
  deployment = await fixture.deploy();
  tracing = new TracingClient({ apiUrl: fixture.emulator.url, apiKey: KEY, timeout_ms: 10_000 });
});

async function projectRuns(): Promise<
  Array<{ id: string; trace_id?: string; status?: string; extra?: unknown }>
> {
  const runs = [];
  for await (const run of tracing.listRuns({ projectName: deployment.name })) runs.push(run);
  return runs;
}

describe('traces of agent runs', () => {
  it('records each finished run as a trace in the deployment’s project', async () => {
    const agent = sdkClient(agentUrlOf(deployment));
    const before = (await projectRuns()).length;
    await agent.runs.wait(null, 'agent', { input: userInput('hello'), metadata: { user_id: 'u-1' } });
    const runs = await projectRuns();
    expect(runs).toHaveLength(before + 1);
    const traced = runs.find(
      (run) => (run.extra as { metadata?: { user_id?: string } }).metadata?.user_id === 'u-1',
    );
    expect(traced?.trace_id).toBe(traced?.id);
    expect(traced?.status).toBe('success');
    const project = await tracing.readProject({ projectName: deployment.name });
    expect((await tracing.readRun(traced?.id ?? '')).session_id).toBe(project.id);
  });
});
