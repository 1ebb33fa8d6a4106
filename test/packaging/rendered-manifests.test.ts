// What `helm template` produces, checked against the Kubernetes schemas and against the
// security and least-privilege settings the chart promises.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CONNECTION_CLUSTER_PERMISSIONS,
  CONNECTION_KEY_PERMISSIONS,
  LEADER_ELECTION_PERMISSIONS,
  ORPHAN_RECORD_PERMISSIONS,
  WATCH_PERMISSIONS,
} from '../../src/operator/rbac.js';
import { type Manifest, RELEASE_NAMESPACE, VALUE_SETS, isUserRole, renderChart } from './support/helm.js';
import { validateAgainstKubernetesSchemas } from './support/kubernetes-schema.js';

type Json = Record<string, unknown>;

function field(value: unknown, ...path: Array<string | number>): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/** The connection CRDs are templated the same way; these checks look at the AgentDeployment one. */
function isAgentDeploymentCrd(m: Manifest): boolean {
  return m.kind !== 'CustomResourceDefinition' || m.metadata.name === 'agentdeployments.agentplatform.io';
}

function only(manifests: Manifest[], kind: string): Manifest {
  const found = manifests.filter((m) => m.kind === kind);
  expect(
    found.map((m) => m.metadata.name),
    `exactly one ${kind}`,
  ).toHaveLength(1);
  return found[0] as Manifest;
}

function operatorContainer(manifests: Manifest[]): Json {
  const containers = field(only(manifests, 'Deployment'), 'spec', 'template', 'spec', 'containers');
  expect(Array.isArray(containers) && containers.length === 1).toBe(true);
  return (containers as Json[])[0] as Json;
}

function args(manifests: Manifest[]): string[] {
  return field(operatorContainer(manifests), 'args') as string[];
}

const rendered = new Map<string, Manifest[]>();

beforeAll(async () => {
  for (const valueSet of VALUE_SETS) rendered.set(valueSet.name, await renderChart(valueSet));
});

function render(name: string): Manifest[] {
  const manifests = rendered.get(name);
  if (!manifests) throw new Error(`no rendering named ${name}`);
  return manifests;
}

/** Kinds outside the Kubernetes schemas that the chart may render, with the fields we check ourselves. */
const CUSTOM_KINDS: Record<string, (m: Manifest) => string[]> = {
  'monitoring.coreos.com/v1/ServiceMonitor': (m) => {
    const endpoints = field(m, 'spec', 'endpoints');
    const problems: string[] = [];
    if (!field(m, 'spec', 'selector', 'matchLabels')) problems.push('spec.selector.matchLabels is required');
    if (!Array.isArray(endpoints) || endpoints.length === 0)
      problems.push('spec.endpoints must not be empty');
    return problems;
  },
  'monitoring.coreos.com/v1/PrometheusRule': (m) => {
    const groups = field(m, 'spec', 'groups');
    if (!Array.isArray(groups) || groups.length === 0) return ['spec.groups must not be empty'];
    return (groups as Json[]).flatMap((g, i) =>
      ((g['rules'] as Json[] | undefined) ?? []).flatMap((r, j) =>
        typeof r['alert'] === 'string' && typeof r['expr'] === 'string'
          ? []
          : [`spec.groups[${i}].rules[${j}] needs alert and expr`],
      ),
    );
  },
};

describe.each(VALUE_SETS.map((v) => v.name))('rendered with %s', (name) => {
  it('validates every object against the Kubernetes schemas (types, required fields, unknown fields)', async () => {
    const problems: string[] = [];
    for (const manifest of render(name)) {
      const outcome = await validateAgainstKubernetesSchemas(manifest);
      if (outcome.known) {
        problems.push(...outcome.problems);
        continue;
      }
      const check = CUSTOM_KINDS[`${manifest.apiVersion}/${manifest.kind}`];
      if (!check) problems.push(`${manifest.apiVersion} ${manifest.kind}: no schema known`);
      else problems.push(...check(manifest).map((p) => `${manifest.kind}/${manifest.metadata.name}: ${p}`));
    }
    expect(problems).toEqual([]);
  });

  it('labels every object with the standard labels and namespaces every namespaced one', () => {
    for (const manifest of render(name)) {
      const labels = manifest.metadata.labels ?? {};
      expect(labels['app.kubernetes.io/name'], `${manifest.kind} name label`).toBe('agent-operator');
      expect(labels['app.kubernetes.io/instance']).toBe('agent-operator');
      expect(labels['app.kubernetes.io/managed-by']).toBe('Helm');
      expect(labels['helm.sh/chart']).toMatch(/^agent-operator-\d+\.\d+\.\d+/);
      const clusterScoped = ['ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition'].includes(
        manifest.kind,
      );
      if (!clusterScoped) expect(manifest.metadata.namespace, `${manifest.kind} namespace`).toBeTruthy();
    }
  });

  it('runs the pod under the restricted Pod Security Standard', () => {
    const pod = field(only(render(name), 'Deployment'), 'spec', 'template', 'spec') as Json;
    expect(pod['securityContext']).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 65532,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const container = operatorContainer(render(name));
    expect(container['securityContext']).toMatchObject({
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      privileged: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(field(container, 'securityContext', 'capabilities', 'add')).toBeUndefined();
    const mounts = container['volumeMounts'] as Json[];
    const tmp = mounts.find((m) => m['mountPath'] === '/tmp');
    const volumes = pod['volumes'] as Json[];
    expect(volumes.find((v) => v['name'] === tmp?.['name'])).toHaveProperty('emptyDir');
    for (const forbidden of ['hostNetwork', 'hostPID', 'hostIPC']) expect(pod[forbidden]).toBeUndefined();
  });

  it('probes /healthz and /readyz on the metrics port', () => {
    const container = operatorContainer(render(name));
    expect(container['livenessProbe']).toMatchObject({ httpGet: { path: '/healthz', port: 'metrics' } });
    expect(container['readinessProbe']).toMatchObject({ httpGet: { path: '/readyz', port: 'metrics' } });
    expect(container['ports']).toEqual([expect.objectContaining({ name: 'metrics', containerPort: 8080 })]);
  });

  it('passes the API key as a file from the Secret, never as an env value', () => {
    const manifests = render(name);
    const container = operatorContainer(manifests);
    const keyArg = args(manifests).find((a) => a.startsWith('--api-key-file='));
    expect(keyArg).toBeDefined();
    const keyPath = keyArg?.slice('--api-key-file='.length) ?? '';
    const mount = (container['volumeMounts'] as Json[]).find((m) =>
      keyPath.startsWith(`${String(m['mountPath'])}/`),
    );
    expect(mount).toMatchObject({ readOnly: true });
    const pod = field(only(manifests, 'Deployment'), 'spec', 'template', 'spec') as Json;
    const volume = (pod['volumes'] as Json[]).find((v) => v['name'] === mount?.['name']);
    expect(field(volume, 'secret', 'secretName')).toBeTruthy();
    const env = (container['env'] as Json[] | undefined) ?? [];
    expect(env.map((e) => e['name'])).not.toContain('AGENT_OPERATOR_API_KEY');
    expect(args(manifests).some((a) => a.startsWith('--api-key='))).toBe(false);
  });

  it('grants only the verbs the operator needs', () => {
    const roles = render(name).filter((m) => (m.kind === 'ClusterRole' || m.kind === 'Role') && !isUserRole(m));
    // The union of every list in src/operator/rbac.ts: no role grants anything outside it
    // (rbac-from-code.test.ts checks each role against its own list exactly).
    const allowed: Record<string, string[]> = {};
    for (const rule of [
      ...WATCH_PERMISSIONS,
      ...LEADER_ELECTION_PERMISSIONS,
      ...CONNECTION_CLUSTER_PERMISSIONS,
      ...CONNECTION_KEY_PERMISSIONS,
      ...ORPHAN_RECORD_PERMISSIONS,
    ]) {
      const grant = (allowed[`${rule.apiGroup}/${rule.resource}`] ??= []);
      grant.push(...rule.verbs);
    }
    for (const role of roles) {
      for (const rule of (role['rules'] as Json[]) ?? []) {
        for (const group of rule['apiGroups'] as string[]) {
          for (const resource of rule['resources'] as string[]) {
            const grant = allowed[`${group}/${resource}`];
            expect(grant, `${role.kind}/${role.metadata.name} grants ${group}/${resource}`).toBeDefined();
            for (const verb of rule['verbs'] as string[]) expect(grant).toContain(verb);
          }
        }
      }
    }
  });
});

describe('choices made by the values', () => {
  it('watches all namespaces with a ClusterRole by default, and no namespaces flag', () => {
    const manifests = render('defaults');
    const watching = (m: Manifest) => !m.metadata.name.endsWith('-connections') && !isUserRole(m);
    expect(only(manifests.filter(watching), 'ClusterRole').metadata.name).toBe('agent-operator');
    expect(only(manifests.filter(watching), 'ClusterRoleBinding')).toMatchObject({
      subjects: [{ kind: 'ServiceAccount', name: 'agent-operator', namespace: RELEASE_NAMESPACE }],
    });
    expect(args(manifests).some((a) => a.startsWith('--namespaces'))).toBe(false);
  });

  it("uses a Role and RoleBinding per watched namespace, and no cluster-wide grant but the connections'", () => {
    const manifests = render('namespaced watch');
    // Cluster-scoped connections and Namespaces (for their selectors) need a ClusterRole; it grants no Secrets.
    expect(
      manifests
        .filter((m) => m.kind.startsWith('Cluster') && m.kind !== 'CustomResourceDefinition' && !isUserRole(m))
        .map((m) => `${m.kind}/${m.metadata.name}`),
    ).toEqual(['ClusterRole/agent-operator-connections', 'ClusterRoleBinding/agent-operator-connections']);
    const own = (m: Manifest) => !/(leader-election|connection-keys|orphan-records)$/.test(m.metadata.name);
    const watchRoles = manifests.filter((m) => m.kind === 'Role' && own(m));
    expect(watchRoles.map((r) => r.metadata.namespace).sort()).toEqual(['team-a', 'team-b']);
    const bindings = manifests.filter((m) => m.kind === 'RoleBinding' && own(m));
    expect(bindings.map((r) => r.metadata.namespace).sort()).toEqual(['team-a', 'team-b']);
    const leaderRole = manifests.find(
      (m) => m.kind === 'Role' && m.metadata.name.endsWith('leader-election'),
    );
    expect(leaderRole?.metadata.namespace).toBe(RELEASE_NAMESPACE);
    // The orphan records live in the release namespace whatever is watched.
    const orphanRole = manifests.find((m) => m.kind === 'Role' && m.metadata.name.endsWith('orphan-records'));
    expect(orphanRole?.metadata.namespace).toBe(RELEASE_NAMESPACE);
    expect(args(manifests)).toContain('--namespaces=team-a,team-b');
  });

  it('forces leader election on with more than one replica', () => {
    const manifests = render('two replicas, leader election left off');
    expect(field(only(manifests, 'Deployment'), 'spec', 'replicas')).toBe(2);
    expect(args(manifests)).toEqual(
      expect.arrayContaining([
        '--leader-elect',
        `--leader-election-namespace=${RELEASE_NAMESPACE}`,
        '--leader-election-id=agent-operator',
      ]),
    );
  });

  it('passes the flags the operator reads, with region by default and the URL when set', () => {
    expect(args(render('defaults'))).toEqual(
      expect.arrayContaining([
        'run',
        '--region=us',
        '--concurrency=16',
        '--resync-period=10m',
        '--push-poll-period=10s',
        '--log-level=info',
        '--metrics-bind-address=0.0.0.0:8080',
      ]),
    );
    const custom = render('self-hosted url, tenant from a secret, digest, overrides');
    const customArgs = args(custom);
    expect(customArgs).toEqual(
      expect.arrayContaining([
        '--control-plane-url=https://agents.internal.example.com/api',
        '--api-key-file=/var/run/secrets/agentplatform.io/control-plane/token',
        '--rate-limit=500/10',
        '--resync-period=5m',
        '--push-poll-period=30s',
        '--concurrency=8',
        '--log-level=debug',
      ]),
    );
    expect(customArgs.some((a) => a.startsWith('--region'))).toBe(false);
    const container = operatorContainer(custom);
    expect(container['image']).toBe(`ghcr.io/agentplatform/agent-operator@sha256:${'a'.repeat(64)}`);
    expect(container['env']).toEqual(
      expect.arrayContaining([
        {
          name: 'AGENT_OPERATOR_TENANT_ID',
          valueFrom: { secretKeyRef: { name: 'cp-tenant', key: 'tenant' } },
        },
      ]),
    );
    expect(args(render('eu region, tenant id, no CRDs'))).toContain('--region=eu');
    expect(operatorContainer(render('defaults'))['image']).toBe('ghcr.io/agentplatform/agent-operator:0.1.0');
  });

  it('renders the monitoring objects, the PDB and the NetworkPolicy only when enabled', () => {
    const defaults = render('defaults').map((m) => m.kind);
    for (const kind of [
      'ServiceMonitor',
      'PrometheusRule',
      'PodDisruptionBudget',
      'NetworkPolicy',
      'ConfigMap',
    ]) {
      expect(defaults).not.toContain(kind);
    }
    const all = render('monitoring, disruption budget and network policy');
    expect(only(all, 'ServiceMonitor')).toMatchObject({
      spec: { endpoints: [{ port: 'metrics', path: '/metrics' }] },
    });
    expect(only(all, 'PodDisruptionBudget')).toMatchObject({ spec: { minAvailable: 1 } });
    const dashboard = only(all, 'ConfigMap');
    expect(dashboard.metadata.labels?.['grafana_dashboard']).toBe('1');
    expect(() => JSON.parse(String(field(dashboard, 'data', 'agent-operator.json')))).not.toThrow();
  });

  it('lets only the scrapers into the metrics port, and out only DNS, the API server and the control plane', () => {
    const policy = only(render('monitoring, disruption budget and network policy'), 'NetworkPolicy');
    expect(field(policy, 'spec', 'policyTypes')).toEqual(['Ingress', 'Egress']);
    const ingress = field(policy, 'spec', 'ingress') as Json[];
    expect(ingress).toHaveLength(1);
    expect(ingress[0]?.['ports']).toEqual([{ port: 'metrics', protocol: 'TCP' }]);
    expect(ingress[0]?.['from']).toEqual([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
    ]);
    const egressPorts = (field(policy, 'spec', 'egress') as Json[]).map((rule) =>
      (rule['ports'] as Json[]).map((p) => `${String(p['protocol'])}/${String(p['port'])}`),
    );
    expect(egressPorts).toEqual([['UDP/53', 'TCP/53'], ['TCP/443', 'TCP/6443'], ['TCP/443']]);
  });

  it('installs no CRD when crds.install is false', () => {
    expect(render('eu region, tenant id, no CRDs').map((m) => m.kind)).not.toContain(
      'CustomResourceDefinition',
    );
  });
});

// The CRD file is generated into the chart (npx tsx src/cli.ts crds --write); a missing one
// fails these checks rather than skipping them.
describe('the templated CRD', () => {
  it('is installed with the keep policy and the chart labels, and upgrades with the release', () => {
    const crd = only(render('defaults').filter(isAgentDeploymentCrd), 'CustomResourceDefinition');
    expect(crd.metadata.name).toBe('agentdeployments.agentplatform.io');
    expect(crd.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
    expect(field(crd, 'spec', 'names', 'shortNames')).toContain('agd');
  });

  it('drops the keep policy when crds.keep is false', async () => {
    const crd = only(
      (await renderChart({ set: ['crds.keep=false'] })).filter(isAgentDeploymentCrd),
      'CustomResourceDefinition',
    );
    expect(crd.metadata.annotations?.['helm.sh/resource-policy']).toBeUndefined();
  });
});
