// Plumbing for the platform data API tests: one emulator (control plane + platform data API on
// one address) per test file, and a raw HTTP helper for the routes the operator calls itself.
import { afterAll } from 'vitest';
import { EmulatorClient, KEY, ManualClock } from '../controlplane-emulator/helpers.js';
import {
  startControlPlaneEmulator,
  type ControlPlaneEmulatorOptions,
} from '../../src/sim/controlplane/index.js';

export { KEY, ManualClock };

export async function startPlatform(options: ControlPlaneEmulatorOptions = {}): Promise<EmulatorClient> {
  const emulator = await startControlPlaneEmulator({ revisionPhaseMs: 0, rateLimit: 'off', ...options });
  afterAll(() => emulator.close());
  return new EmulatorClient(emulator);
}

/** The JSON batch ingest body of one trace: a root run whose id is the trace id. */
export function oneTraceBatch(id: string, sessionName: string, metadata: Record<string, unknown>) {
  return {
    post: [
      {
        id,
        trace_id: id,
        name: 'agent',
        run_type: 'chain',
        start_time: new Date().toISOString(),
        inputs: { question: 'hi' },
        session_name: sessionName,
        extra: { metadata },
      },
    ],
  };
}

/** A trace (one root run) through the JSON batch route, with optional metadata. */
export async function ingestTrace(
  api: EmulatorClient,
  sessionName: string,
  metadata: Record<string, unknown> = {},
  key: string = KEY,
): Promise<string> {
  const id = crypto.randomUUID();
  const response = await api.call('POST', '/runs/batch', {
    key,
    body: oneTraceBatch(id, sessionName, metadata),
  });
  if (response.status !== 202)
    throw new Error(`ingest failed: ${response.status} ${JSON.stringify(response.body)}`);
  return id;
}

export async function sessionId(api: EmulatorClient, name: string, key: string = KEY): Promise<string> {
  const response = await api.call<{ id: string }[]>('GET', `/sessions?name=${encodeURIComponent(name)}`, {
    key,
  });
  const id = response.body[0]?.id;
  if (id === undefined) throw new Error(`no session named ${name}`);
  return id;
}

/** Ids of the runs a v1 run query returns for these trace ids in the session. */
export async function remainingTraces(
  api: EmulatorClient,
  session: string,
  traceIds: string[],
): Promise<string[]> {
  const response = await api.call<{ runs: { trace_id: string }[] }>('POST', '/api/v1/runs/query', {
    body: { session: [session], id: traceIds, is_root: true, limit: 100 },
  });
  return response.body.runs.map((run) => run.trace_id);
}
