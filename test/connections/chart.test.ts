// The chart's connection parts, rendered by the real helm: the default connection from
// values, egress to each connection region's fixed addresses, and the RBAC connections need
// (cluster-scoped reads, and Secrets only in the release namespace).
import { execFileSync } from 'node:child_process';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { CHART_DIR, HELM, requireTool } from '../packaging/support/paths.js';

interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
  rules?: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
}

function render(...sets: string[]): Manifest[] {
  const output = execFileSync(
    requireTool(HELM),
    ['template', 'rel', CHART_DIR, '-n', 'ops', ...sets.flatMap((s) => ['--set', s])],
    // stderr piped, not inherited: the refusals this file expects would print on success.
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return yaml.loadAll(output).filter((doc): doc is Manifest => doc !== null && typeof doc === 'object');
}

describe('chart: connections', () => {
  it('creates the default connection from the controlPlane values when asked', () => {
    expect(render().some((m) => m.kind === 'ClusterPlatformConnection')).toBe(false);
    const connection = render(
      'connections.default.create=true',
      'controlPlane.region=eu',
      'controlPlane.tenantId=6f1b7b3e-51a4-4c39-8f55-3a1d2b4c5e6f',
    ).find((m) => m.kind === 'ClusterPlatformConnection');
    expect(connection?.metadata.name).toBe('default');
    expect(connection?.spec).toEqual({
      region: 'eu',
      apiKeySecretRef: { name: 'agent-operator-credentials', key: 'api-key' },
      tenantId: '6f1b7b3e-51a4-4c39-8f55-3a1d2b4c5e6f',
      // It serves every namespace, as the default connection does, and lets the same
      // namespaces delete data as the default connection does: the release namespace.
      namespaceSelector: {},
      dataDeletionNamespaceSelector: {
        matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['ops'] }],
      },
    });
  });

  it('a self-hosted default connection needs both URLs', () => {
    expect(() =>
      render('connections.default.create=true', 'controlPlane.url=https://p.example.com/cp'),
    ).toThrow(/controlPlane.platformApiUrl is required/);
    const connection = render(
      'connections.default.create=true',
      'controlPlane.url=https://p.example.com/cp',
      'controlPlane.platformApiUrl=https://p.example.com/api',
    ).find((m) => m.kind === 'ClusterPlatformConnection');
    expect(connection?.spec).toMatchObject({
      controlPlaneUrl: 'https://p.example.com/cp',
      platformApiUrl: 'https://p.example.com/api',
    });
  });

  it("the NetworkPolicy allows egress to the fixed addresses of the connections' regions only", () => {
    const policy = render(
      'networkPolicy.enabled=true',
      'networkPolicy.controlPlane.regions={eu}',
      'networkPolicy.controlPlane.cidrsByRegion.eu={192.0.2.0/28}',
      'networkPolicy.controlPlane.cidrsByRegion.us={198.51.100.0/28}',
    ).find((m) => m.kind === 'NetworkPolicy');
    const egress = (policy?.spec?.egress ?? []) as Array<{ to?: unknown[] }>;
    expect(egress.at(-1)?.to).toEqual([{ ipBlock: { cidr: '192.0.2.0/28' } }]);
  });

  it('RBAC: cluster-scoped connections and Namespaces by ClusterRole; Secrets of the release namespace only by a Role there', () => {
    const manifests = render('watchNamespaces={team-a}');
    const clusterRole = manifests.find(
      (m) => m.kind === 'ClusterRole' && m.metadata.name.endsWith('-connections'),
    );
    expect(clusterRole?.rules?.flatMap((r) => r.resources)).toEqual([
      'clusterplatformconnections',
      'clusterplatformconnections/status',
      'namespaces',
    ]);
    const keys = manifests.find((m) => m.kind === 'Role' && m.metadata.name.endsWith('-connection-keys'));
    expect(keys?.metadata.namespace).toBe('ops');
    expect(keys?.rules).toEqual([{ apiGroups: [''], resources: ['secrets'], verbs: ['list', 'watch'] }]);
    const teamRole = manifests.find((m) => m.kind === 'Role' && m.metadata.namespace === 'team-a');
    expect(teamRole?.rules?.flatMap((r) => r.resources)).toContain('platformconnections/status');
    // Watching every namespace already reads Secrets cluster-wide: no extra Role.
    expect(render().some((m) => m.metadata.name.endsWith('-connection-keys'))).toBe(false);
  });
});
