// The rendered chart and examples/ applied with the real kubectl to the project's Kubernetes
// API emulator: what a user types, against an API server that validates like a real one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dump } from 'js-yaml';
import { RELEASE_NAMESPACE, VALUE_SETS, renderChart, type Manifest } from './support/helm.js';
import { type KubeUnderTest, startKube } from './support/kube-emulator.js';
import { EXAMPLES_DIR } from './support/paths.js';

const kube: KubeUnderTest = await startKube();

// The Prometheus Operator's kinds need its CRDs, which are not the chart's to install.
const NEEDS_OTHER_CRDS = new Set(['monitoring.coreos.com/v1']);

function stream(manifests: Manifest[]): string {
  return manifests
    .filter((m) => !NEEDS_OTHER_CRDS.has(m.apiVersion))
    .map((m) => dump(m, { noRefs: true, lineWidth: -1 }))
    .join('---\n');
}

describe('kubectl apply to the Kubernetes emulator', () => {
  async function kubectl(args: string[], input?: string): Promise<string> {
    const result = await kube.kubectl(args, input);
    expect(result.stderr, `kubectl ${args.join(' ')}`).not.toMatch(/error|invalid/i);
    expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
    return result.stdout;
  }

  beforeAll(async () => {
    // `kubectl apply` (JSON on the wire) rather than `kubectl create namespace`, which sends protobuf.
    const namespaces = [RELEASE_NAMESPACE, 'team-a', 'team-b'].map((name) => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    }));
    await kubectl(['apply', '-f', '-'], namespaces.map((n) => dump(n)).join('---\n'));
  });

  afterAll(async () => {
    await kube.stop();
  });

  it('applies the default rendering, CRD included, and the CRD becomes Established', async () => {
    const out = await kubectl(['apply', '-f', '-'], stream(await renderChart({})));
    expect(out).toMatch(
      /customresourcedefinition.apiextensions.k8s.io\/agentdeployments.agentplatform.io created/,
    );
    expect(out).toMatch(/deployment.apps\/agent-operator created/);
    await kubectl([
      'wait',
      '--for=condition=Established',
      '--timeout=30s',
      'crd/agentdeployments.agentplatform.io',
    ]);
  });

  it.each(VALUE_SETS.filter((v) => v.name !== 'defaults').map((v) => [v.name, v] as const))(
    'applies the rendering with %s (server-side dry run)',
    async (_name, valueSet) => {
      await kubectl(['apply', '--dry-run=server', '-f', '-'], stream(await renderChart(valueSet)));
    },
  );

  it('applies examples/ as it is, and a second apply changes nothing', async () => {
    const first = await kubectl(['apply', '-f', EXAMPLES_DIR]);
    expect(first).toMatch(/namespace\/agents-demo created/);
    expect(first).toMatch(/agentdeployment.agentplatform.io\/research-assistant created/);
    expect(first).toMatch(/agentdeployment.agentplatform.io\/support-bot created/);
    const second = await kubectl(['apply', '-f', EXAMPLES_DIR]);
    expect(
      second
        .trim()
        .split('\n')
        .filter((line) => !line.endsWith(' unchanged')),
    ).toEqual([]);
  });

  it('lists the examples by short name with the printer columns', async () => {
    const table = await kubectl(['get', 'agd', '-n', 'agents-demo']);
    expect(table.split('\n')[0]).toMatch(/^NAME\s+READY\s+STATUS\s+REVISION\s+LATEST\s+SUSPENDED\s+AGE$/);
    // Not reconciled here (no operator): the status columns are blank, SUSPENDED is the default.
    expect(table).toMatch(/research-assistant\s+false\s+\d+s\n/);
    const wide = await kubectl(['get', 'agd', '-n', 'agents-demo', '-o', 'wide']);
    expect(wide).toMatch(/support-bot\s+.*\s+external_container\s+/);
  });

  it('keeps the external_container resourceSpec byte for byte (volumes, mounts, init containers, sidecars)', async () => {
    const stored = JSON.parse(
      await kubectl(['get', 'agd', 'support-bot', '-n', 'agents-demo', '-o', 'json']),
    ) as {
      spec: { sourceConfig: { resourceSpec: Record<string, unknown> } };
    };
    const spec = stored.spec.sourceConfig.resourceSpec;
    expect(spec['sidecars']).toEqual([
      expect.objectContaining({ name: 'log-shipper', restartPolicy: 'Always' }),
    ]);
    expect((spec['volumes'] as unknown[]).length).toBe(3);
    expect(spec['initContainers']).toEqual([expect.objectContaining({ name: 'warm-cache' })]);
  });
});
