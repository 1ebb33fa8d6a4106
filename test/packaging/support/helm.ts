// helm lint / helm template with the real helm binary, over named sets of values.
import { load, loadAll } from 'js-yaml';
import { CHART_DIR, HELM, requireTool } from './paths.js';
import { type RunResult, run } from './run.js';

export const RELEASE_NAME = 'agent-operator';
export const RELEASE_NAMESPACE = 'agent-operator-system';

/** A value set is a list of `--set`-style assignments plus optional YAML values. */
export interface ValueSet {
  name: string;
  set?: string[];
  values?: Record<string, unknown>;
}

export const VALUE_SETS: ValueSet[] = [
  { name: 'defaults' },
  {
    name: 'namespaced watch',
    values: { watchNamespaces: ['team-a', 'team-b'], adoptionNamespaces: ['team-a'] },
  },
  { name: 'two replicas, leader election left off', set: ['replicaCount=2', 'leaderElection.enabled=false'] },
  {
    name: 'monitoring, disruption budget and network policy',
    set: [
      'serviceMonitor.enabled=true',
      'prometheusRule.enabled=true',
      'grafanaDashboard.enabled=true',
      'podDisruptionBudget.enabled=true',
      'networkPolicy.enabled=true',
      'replicaCount=2',
    ],
  },
  {
    name: 'self-hosted url, tenant from a secret, digest, overrides',
    values: {
      controlPlane: {
        url: 'https://agents.internal.example.com/api',
        apiKey: { existingSecret: 'cp-key', key: 'token' },
        tenantIdFromSecret: { name: 'cp-tenant', key: 'tenant' },
      },
      image: { digest: `sha256:${'a'.repeat(64)}`, pullSecrets: ['regcred'] },
      rateLimit: '500/10',
      resyncPeriod: '5m',
      pushPollPeriod: '30s',
      concurrency: 8,
      logLevel: 'debug',
      priorityClassName: 'system-cluster-critical',
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'ops', effect: 'NoSchedule' }],
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: 'topology.kubernetes.io/zone',
          whenUnsatisfiable: 'ScheduleAnyway',
          labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'agent-operator' } },
        },
      ],
      serviceAccount: { annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::123456789012:role/op' } },
    },
  },
  {
    name: 'egress proxy, CA bundle, extra args, env and volumes',
    values: {
      extraArgs: ['--poll-interval=5s'],
      extraEnv: [{ name: 'TZ', value: 'UTC' }],
      extraVolumes: [{ name: 'scratch', emptyDir: {} }],
      extraVolumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
      proxy: {
        httpsProxy: 'http://proxy.corp.example.com:3128',
        noProxy: '.svc,.cluster.local,10.0.0.0/8',
      },
      caBundle: { configMapName: 'corp-ca', key: 'ca.pem' },
    },
  },
  {
    name: 'eu region, tenant id, no CRDs',
    set: ['controlPlane.region=eu', 'crds.install=false'],
    values: { controlPlane: { tenantId: '0f8fad5b-d9cb-469f-a165-70867728950e' } },
  },
];

function valueArgs(valueSet: Pick<ValueSet, 'set' | 'values'>): string[] {
  const args: string[] = [];
  if (valueSet.values) args.push('--values', '-');
  for (const assignment of valueSet.set ?? []) args.push('--set', assignment);
  return args;
}

function valueInput(valueSet: Pick<ValueSet, 'values'>): string | undefined {
  return valueSet.values ? JSON.stringify(valueSet.values) : undefined;
}

export function helm(args: string[], input?: string): Promise<RunResult> {
  return run(requireTool(HELM), args, input === undefined ? {} : { input });
}

export function helmLint(valueSet: Pick<ValueSet, 'set' | 'values'>): Promise<RunResult> {
  return helm(
    ['lint', '--strict', CHART_DIR, '--namespace', RELEASE_NAMESPACE, ...valueArgs(valueSet)],
    valueInput(valueSet),
  );
}

export function helmTemplate(valueSet: Pick<ValueSet, 'set' | 'values'>): Promise<RunResult> {
  return helm(
    ['template', RELEASE_NAME, CHART_DIR, '--namespace', RELEASE_NAMESPACE, ...valueArgs(valueSet)],
    valueInput(valueSet),
  );
}

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
}

/**
 * A ClusterRole for people (folded into view, edit or admin by an aggregation label), not one
 * the operator is bound to: the operator's least-privilege checks leave these out.
 */
export function isUserRole(manifest: Manifest): boolean {
  return Object.keys(manifest.metadata.labels ?? {}).some((label) =>
    label.startsWith('rbac.authorization.k8s.io/aggregate-to-'),
  );
}

export function isManifest(value: unknown): value is Manifest {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  const metadata = candidate['metadata'];
  return (
    typeof candidate['apiVersion'] === 'string' &&
    typeof candidate['kind'] === 'string' &&
    typeof metadata === 'object' &&
    metadata !== null &&
    typeof (metadata as Record<string, unknown>)['name'] === 'string'
  );
}

/** Parses a multi-document YAML stream; every non-empty document must be a Kubernetes object. */
export function parseManifests(yaml: string, source: string): Manifest[] {
  const manifests: Manifest[] = [];
  loadAll(yaml, (document) => {
    if (document === null || document === undefined) return;
    if (!isManifest(document)) {
      throw new Error(
        `${source}: a document is not a Kubernetes object: ${JSON.stringify(document).slice(0, 200)}`,
      );
    }
    manifests.push(document);
  });
  return manifests;
}

export async function renderChart(valueSet: Pick<ValueSet, 'set' | 'values'>): Promise<Manifest[]> {
  const result = await helmTemplate(valueSet);
  if (result.code !== 0) throw new Error(`helm template failed: ${result.stderr}`);
  return parseManifests(result.stdout, 'helm template');
}

export function parseYaml(text: string): unknown {
  return load(text);
}
