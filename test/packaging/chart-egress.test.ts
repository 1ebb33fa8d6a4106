// The chart's egress and extension values through the real helm: a proxy and a CA bundle for
// the control-plane client, and the extraArgs/extraEnv/extraVolumes/extraVolumeMounts every
// operator chart has. The values schema names the field of a bad value.
import { describe, expect, it } from 'vitest';
import { VALUE_SETS, helmTemplate, renderChart, type Manifest } from './support/helm.js';

interface Container {
  args: string[];
  env?: Array<{ name: string; value?: string }>;
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
}
interface PodSpec {
  containers: Container[];
  volumes?: Array<{ name: string; configMap?: { name: string }; secret?: { secretName: string } }>;
}

function podSpec(manifests: Manifest[]): PodSpec {
  const deployment = manifests.find((m) => m.kind === 'Deployment') as
    { spec: { template: { spec: PodSpec } } } | undefined;
  if (!deployment) throw new Error('no Deployment rendered');
  return deployment.spec.template.spec;
}

const EGRESS = VALUE_SETS.find((v) => v.name.startsWith('egress proxy'));

describe('chart egress and extension values', () => {
  it('renders the proxy variables, the CA bundle and the extra args, env, volumes and mounts', async () => {
    if (!EGRESS) throw new Error('the egress value set is missing');
    const pod = podSpec(await renderChart(EGRESS));
    const [operator] = pod.containers;
    expect(operator?.args.at(-1)).toBe('--poll-interval=5s');
    const env = Object.fromEntries((operator?.env ?? []).map((v) => [v.name, v.value]));
    expect(env).toMatchObject({
      HTTPS_PROXY: 'http://proxy.corp.example.com:3128',
      NO_PROXY: '.svc,.cluster.local,10.0.0.0/8',
      NODE_EXTRA_CA_CERTS: '/etc/agent-operator/ca-bundle/ca.pem',
      TZ: 'UTC',
    });
    expect(env).not.toHaveProperty('HTTP_PROXY');
    expect(operator?.volumeMounts).toEqual(
      expect.arrayContaining([
        { name: 'ca-bundle', mountPath: '/etc/agent-operator/ca-bundle', readOnly: true },
        { name: 'scratch', mountPath: '/scratch' },
      ]),
    );
    expect(pod.volumes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'ca-bundle',
          configMap: expect.objectContaining({ name: 'corp-ca' }),
        }),
        { name: 'scratch', emptyDir: {} },
      ]),
    );
  });

  it('takes the CA bundle from a Secret when no ConfigMap is named', async () => {
    const pod = podSpec(await renderChart({ set: ['caBundle.secretName=corp-ca'] }));
    expect(pod.volumes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'ca-bundle',
          secret: expect.objectContaining({ secretName: 'corp-ca' }),
        }),
      ]),
    );
  });

  it('renders none of it by default', async () => {
    const pod = podSpec(await renderChart({}));
    const names = (pod.containers[0]?.env ?? []).map((v) => v.name);
    expect(names).not.toEqual(expect.arrayContaining(['HTTPS_PROXY']));
    expect(names).not.toContain('NODE_EXTRA_CA_CERTS');
    expect(pod.volumes?.map((v) => v.name)).toEqual(['control-plane-credentials', 'tmp']);
  });

  it.each([
    { name: 'a proxy without scheme', set: ['proxy.httpsProxy=proxy.corp:3128'], field: 'proxy.httpsProxy' },
    { name: 'an extra env var without name', values: { extraEnv: [{ value: 'x' }] }, field: 'extraEnv.0' },
    {
      name: 'an extra arg that is no flag',
      values: { extraArgs: ['poll-interval=5s'] },
      field: 'extraArgs.0',
    },
    {
      name: 'a mount without path',
      values: { extraVolumeMounts: [{ name: 'x' }] },
      field: 'extraVolumeMounts.0',
    },
    { name: 'an unknown proxy value', set: ['proxy.ftpProxy=x'], field: 'proxy' },
  ])('rejects $name, naming the field', async (rejection) => {
    const result = await helmTemplate(rejection);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`- ${rejection.field}: `);
  });
});
