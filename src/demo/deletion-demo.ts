// The demo's data deletion part (embedded emulator only): it seeds traces and dataset examples
// through the platform API, applies one TraceDeletion (a GDPR-style erasure by user id) and one
// ExampleDeletion (clearing an evaluation run), and shows each phase as the operator moves them.
import { EXAMPLE_DELETIONS, TRACE_DELETIONS } from '../reconcilers/deletion/setup.js';
import type { KubeClient } from '../runtime/kube/client.js';
import type { KubeObject } from '../runtime/kube/objects.js';
import type { ResourceType } from '../runtime/kube/resource.js';
import { labelled } from './footprint.js';

const POLL_MS = 150;
const FINISHED = new Set(['Completed', 'Failed']);

export interface DeletionDemoOptions {
  client: KubeClient;
  platformUrl: string;
  apiKey: string;
  namespace: string;
  deadline: number;
  line(text: string): void;
}

type Phased = KubeObject & { status?: { phase?: string; message?: string } };

async function platformCall<T>(options: DeletionDemoOptions, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${options.platformUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': options.apiKey },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`platform API ${path}: HTTP ${response.status}`);
  return (await response.json()) as T;
}

async function seed(options: DeletionDemoOptions): Promise<void> {
  const runs = ['demo-user', 'demo-user', 'other-user'].map((user) => {
    const id = crypto.randomUUID();
    return {
      id,
      trace_id: id,
      name: 'agent',
      run_type: 'chain',
      start_time: new Date().toISOString(),
      inputs: { question: 'hello' },
      session_name: 'demo-support-bot',
      extra: { metadata: { user_id: user } },
    };
  });
  await platformCall(options, '/runs/batch', { post: runs });
  const dataset = await platformCall<{ id: string }>(options, '/datasets', {
    name: `demo-eval-${Date.now()}`,
  });
  const createdAt = new Date(Date.now() - 60_000).toISOString();
  for (const question of ['2 + 2?', 'capital of France?']) {
    await platformCall(options, '/examples', {
      dataset_id: dataset.id,
      inputs: { question },
      outputs: { answer: '-' },
      metadata: { eval_run: 'demo-2026-q3' },
      created_at: createdAt,
    });
  }
}

/** Seeds data, applies both deletions, and prints their phases until both finish; throws on Failed. */
export async function runDeletionDemo(options: DeletionDemoOptions): Promise<void> {
  await seed(options);
  const objects: Array<{ type: ResourceType; object: Phased }> = [
    {
      type: TRACE_DELETIONS,
      object: {
        apiVersion: 'agentplatform.io/v1alpha1',
        kind: 'TraceDeletion',
        metadata: { name: 'erase-demo-user', namespace: options.namespace },
        spec: { metadata: { user_id: 'demo-user' } },
      } as Phased,
    },
    {
      type: EXAMPLE_DELETIONS,
      object: {
        apiVersion: 'agentplatform.io/v1alpha1',
        kind: 'ExampleDeletion',
        metadata: { name: 'clear-eval-demo', namespace: options.namespace },
        spec: { search: { metadata: { eval_run: 'demo-2026-q3' } }, hardDelete: true },
      } as Phased,
    },
  ];
  for (const { type, object } of objects) await options.client.create(type, labelled(object));
  const shown = new Map<string, string>();
  for (;;) {
    const current = await Promise.all(
      objects.map(({ type, object }) =>
        options.client.get<Phased>(type, options.namespace, object.metadata.name ?? ''),
      ),
    );
    for (const object of current) {
      const phase = object.status?.phase;
      const name = `${(object.kind ?? '').toLowerCase()}/${object.metadata.name ?? ''}`;
      if (phase !== undefined && shown.get(name) !== phase) {
        shown.set(name, phase);
        options.line(`  ${name}: ${phase} (${object.status?.message ?? ''})`);
      }
    }
    const failed = current.find((object) => object.status?.phase === 'Failed');
    if (failed) throw new Error(`${failed.metadata.name ?? ''} Failed: ${failed.status?.message ?? ''}`);
    if (current.every((object) => FINISHED.has(object.status?.phase ?? ''))) return;
    if (Date.now() > options.deadline) throw new Error('timed out waiting for the deletions');
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
