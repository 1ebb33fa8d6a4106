// The chart's container args and env, fed to the operator's own configuration parser: a
// flag the operator does not know, or a value it rejects, fails here rather than in a
// CrashLoopBackOff on someone's cluster.
import { describe, expect, it } from 'vitest';
import { type ConfigSources, type OperatorConfig, parseOperatorConfig } from '../../src/operator/config.js';
import { RELEASE_NAMESPACE, VALUE_SETS, renderChart, type Manifest } from './support/helm.js';

const TENANT_FROM_SECRET = '3b241101-e2bb-4255-8caf-4136c566a962';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { name: string; key: string } };
}

interface Container {
  args: string[];
  env?: EnvVar[];
}

function container(manifests: Manifest[]): Container {
  const deployment = manifests.find((m) => m.kind === 'Deployment') as
    { spec: { template: { spec: { containers: Container[] } } } } | undefined;
  const first = deployment?.spec.template.spec.containers[0];
  if (!first) throw new Error('no operator container rendered');
  return first;
}

/** What the kubelet would put into the environment (secrets replaced by a known stand-in). */
function environment(env: EnvVar[] = []): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = {};
  for (const variable of env) {
    if (variable.value !== undefined) result[variable.name] = variable.value;
    else if (variable.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace')
      result[variable.name] = RELEASE_NAMESPACE;
    else if (variable.valueFrom?.fieldRef) result[variable.name] = 'agent-operator-5d8f7c9b4-x2x7q';
    else if (variable.valueFrom?.secretKeyRef) result[variable.name] = TENANT_FROM_SECRET;
  }
  return result;
}

function parse(sources: ConfigSources): OperatorConfig {
  const parsed = parseOperatorConfig(sources);
  if (parsed.help) throw new Error('the chart made the operator print its help');
  return parsed.config;
}

describe.each(VALUE_SETS.map((v) => [v.name, v] as const))(
  'the operator reads the chart rendered with %s',
  (_name, valueSet) => {
    it('accepts every flag and variable, and reads the API key from the mounted file only', async () => {
      const rendered = container(await renderChart(valueSet));
      expect(rendered.args[0]).toBe('run');
      const filesRead: string[] = [];
      const config = parse({
        argv: rendered.args.slice(1),
        env: environment(rendered.env),
        readFile: (path) => {
          filesRead.push(path);
          return 'key-from-the-mounted-secret\n';
        },
      });
      expect(filesRead).toHaveLength(1);
      expect(filesRead[0]).toMatch(/^\/var\/run\/secrets\/agentplatform\.io\/control-plane\//);
      expect(config.apiKey).toBe('key-from-the-mounted-secret');
      expect(config.metricsBindAddress).toEqual({ host: '0.0.0.0', port: 8080 });
      if (config.leaderElect) expect(config.leaderElectionNamespace).toBe(RELEASE_NAMESPACE);
    });
  },
);

describe('values reach the operator as meant', () => {
  async function configFor(name: string) {
    const valueSet = VALUE_SETS.find((v) => v.name === name);
    if (!valueSet) throw new Error(name);
    const rendered = container(await renderChart(valueSet));
    return parse({ argv: rendered.args.slice(1), env: environment(rendered.env), readFile: () => 'k' });
  }

  it('defaults: region us, all namespaces, leader election, 16 workers, 10 minute resync', async () => {
    const config = await configFor('defaults');
    expect(config).toMatchObject({
      region: 'us',
      namespaces: [],
      leaderElect: true,
      concurrency: 16,
      resyncPeriodMs: 600_000,
      pushPollMs: 10_000,
      logLevel: 'info',
    });
    expect(config.controlPlaneUrl).toBeUndefined();
  });

  it('namespaced watch and forced leader election', async () => {
    const namespaced = await configFor('namespaced watch');
    expect(namespaced.namespaces).toEqual(['team-a', 'team-b']);
    expect(namespaced.adoptionNamespaces).toEqual(['team-a']);
    // The default []: no namespace adopts what it did not orphan itself.
    const defaults = await configFor('defaults');
    expect(defaults.adoptionNamespaces).toEqual([]);
    // Nor may any namespace but the release's delete data, send the key to a chosen host, or
    // reach private addresses through a URL it wrote.
    expect(defaults.dataDeletionNamespaces).toEqual([RELEASE_NAMESPACE]);
    expect(defaults.agentHosts).toEqual([]);
    expect(defaults.allowPrivateNetworks).toBe(false);
    expect((await configFor('two replicas, leader election left off')).leaderElect).toBe(true);
  });

  it('self-hosted URL, tenant from a Secret, rate limit and the other overrides', async () => {
    const config = await configFor('self-hosted url, tenant from a secret, digest, overrides');
    expect(config).toMatchObject({
      controlPlaneUrl: 'https://agents.internal.example.com/api',
      tenantId: TENANT_FROM_SECRET,
      rateLimit: { count: 500, windowSeconds: 10 },
      resyncPeriodMs: 300_000,
      pushPollMs: 30_000,
      concurrency: 8,
      logLevel: 'debug',
    });
  });

  it('eu region with a tenant id', async () => {
    expect(await configFor('eu region, tenant id, no CRDs')).toMatchObject({
      region: 'eu',
      tenantId: '0f8fad5b-d9cb-469f-a165-70867728950e',
    });
  });
});
