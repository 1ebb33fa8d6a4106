// A deletion that names a PlatformConnection goes through that connection's key: the traces
// live in the workspace of the team's key, which the operator's default key cannot see.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM_CONNECTIONS } from '../../src/reconcilers/connection/setup.js';
import { TRACE_DELETIONS } from '../../src/reconcilers/deletion/setup.js';
import { oneTraceBatch } from '../platform-emulator/helpers.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import type { Stack } from '../operator/harness.js';
import { applyConnectionCrds, createPlatformConnection } from '../connections/support/platform.js';
import { NAMESPACE, createTraceDeletion, startDeletionStack, waitForDeletion } from './stack.js';

const TEAM_KEY = 'team-deletion-key-7c1d93';

async function asTeam<T>(stack: Stack, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${stack.controlPlane.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': TEAM_KEY },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status}`);
  return (await response.json()) as T;
}

describe('a deletion through a PlatformConnection', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startDeletionStack({
      moreApiKeys: [TEAM_KEY],
      beforeOperator: async (created) => {
        await applyConnectionCrds(created.client);
        await created.putSecret('team-key', { apiKey: TEAM_KEY });
        await createPlatformConnection(created.client, {
          namespace: NAMESPACE,
          name: 'team',
          controlPlaneUrl: created.controlPlane.url,
          platformApiUrl: created.controlPlane.url,
          secretName: 'team-key',
        });
      },
    });
  });
  afterAll(() => stack.close());

  it("deletes with the connection's key, and verifies with it", async () => {
    await stack.waitUntil(async () => {
      const connection = await stack.client.get<
        KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }
      >(PLATFORM_CONNECTIONS, NAMESPACE, 'team');
      return connection.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
    }, 'the connection is Ready');
    const id = crypto.randomUUID();
    await asTeam(stack, 'POST', '/runs/batch', oneTraceBatch(id, 'team-project', {}));
    const [session] = await asTeam<Array<{ id: string }>>(stack, 'GET', '/sessions?name=team-project');
    expect(session).toBeDefined();
    await createTraceDeletion(stack, 'team-erasure', {
      connectionRef: { kind: 'PlatformConnection', name: 'team' },
      sessionId: session?.id,
      traceIds: [id],
    });
    const done = await waitForDeletion(
      stack,
      TRACE_DELETIONS,
      'team-erasure',
      (o) => o.status?.phase === 'Completed',
    );
    expect(done.status).toMatchObject({ batchesSent: 1, tracesRemaining: 0 });
    const left = await asTeam<{ runs: unknown[] }>(stack, 'POST', '/api/v1/runs/query', {
      session: [session?.id],
      id: [id],
      is_root: true,
    });
    expect(left.runs).toEqual([]);
  });
});
