// The operator-state metrics as a scraper sees them on /metrics: the build's facts, one
// Ready series per AgentDeployment, and data deletions by kind and phase (every pair at 0
// first). Fed by stand-in stores: what the operator wires in is the informers' list().
import { afterEach, describe, expect, it } from 'vitest';
import { DELETION_PHASES } from '../../src/api/deletion/common.js';
import { bindDeletionPhaseMetric, type PhasedObject } from '../../src/observability/deletion-metrics.js';
import { startObservabilityServer, type ObservabilityServer } from '../../src/observability/http-server.js';
import { bindAgentDeploymentReadyMetric, type ConditionedObject } from '../../src/observability/object-ready-metrics.js';
import { createOperatorRegistry } from '../../src/observability/registry.js';
import { buildCommit, packageVersion } from '../../src/version.js';

let server: ObservabilityServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Every sample of one family, as `{labels} value` with the labels sorted. */
function samples(exposition: string, name: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of exposition.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const labels = (match[2] ?? '').split(/,(?=\w+=")/).filter(Boolean).sort().join(',');
    found.set(labels, Number(match[3]));
  }
  return found;
}

async function scrape(agentDeployments: () => ConditionedObject[], traces: () => PhasedObject[], examples: () => PhasedObject[]): Promise<string> {
  const registry = createOperatorRegistry();
  bindAgentDeploymentReadyMetric(registry, agentDeployments);
  bindDeletionPhaseMetric(registry, 'TraceDeletion', traces);
  bindDeletionPhaseMetric(registry, 'ExampleDeletion', examples);
  server = await startObservabilityServer({
    host: '127.0.0.1',
    port: 0,
    registry,
    liveness: () => ({ ok: true, reason: 'ok' }),
    readiness: () => ({ ok: true, reason: 'ok' }),
  });
  const response = await fetch(`${server.url}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

const ready = (namespace: string, name: string, status: string): ConditionedObject => ({
  metadata: { namespace, name },
  status: { conditions: [{ type: 'Reconciling', status: 'False' }, { type: 'Ready', status }] },
});

describe('operator-state metrics on /metrics', () => {
  it('agent_operator_build_info names the running version, commit and Node.js, at 1', async () => {
    const text = await scrape(() => [], () => [], () => []);
    const info = samples(text, 'agent_operator_build_info');
    expect([...info.entries()]).toEqual([
      [`commit="${buildCommit()}",nodejs_version="${process.versions.node}",version="${packageVersion()}"`, 1],
    ]);
  });

  it('agent_operator_agentdeployment_ready: 1 for Ready=True, 0 for False, Unknown or no status, one series per object', async () => {
    let objects = [
      ready('team-a', 'checkout', 'True'),
      ready('team-a', 'refunds', 'False'),
      ready('team-b', 'search', 'Unknown'),
      { metadata: { namespace: 'team-b', name: 'new' } },
    ];
    const text = await scrape(() => objects, () => [], () => []);
    expect(Object.fromEntries(samples(text, 'agent_operator_agentdeployment_ready'))).toEqual({
      'name="checkout",namespace="team-a"': 1,
      'name="refunds",namespace="team-a"': 0,
      'name="search",namespace="team-b"': 0,
      'name="new",namespace="team-b"': 0,
    });
    // A deleted object's series goes with it at the next scrape.
    objects = [ready('team-a', 'checkout', 'True')];
    const after = await (await fetch(`${server?.url ?? ''}/metrics`)).text();
    expect([...samples(after, 'agent_operator_agentdeployment_ready').keys()]).toEqual(['name="checkout",namespace="team-a"']);
  });

  it('agent_operator_data_deletions counts each kind by phase, every pair present at 0, no status as Pending', async () => {
    const text = await scrape(
      () => [],
      () => [{ status: { phase: 'Failed' } }, { status: { phase: 'Verifying' } }, { status: { phase: 'Verifying' } }, {}],
      () => [{ status: { phase: 'Completed' } }],
    );
    const counts = samples(text, 'agent_operator_data_deletions');
    expect(counts.size).toBe(2 * DELETION_PHASES.length);
    expect(counts.get('kind="TraceDeletion",phase="Failed"')).toBe(1);
    expect(counts.get('kind="TraceDeletion",phase="Verifying"')).toBe(2);
    expect(counts.get('kind="TraceDeletion",phase="Pending"')).toBe(1);
    expect(counts.get('kind="ExampleDeletion",phase="Completed"')).toBe(1);
    expect(counts.get('kind="ExampleDeletion",phase="Failed"')).toBe(0);
  });
});
