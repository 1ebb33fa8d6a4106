// How the chart renders connections.default for each state of the cluster's APIs, as Helm
// (group/version and group/version/Kind from discovery) and Argo CD (`helm template
// --api-versions`, with or without kinds) report them: a post-install hook only while
// agentplatform.io/v1alpha1 is not served, an ordinary release object otherwise.
import { describe, expect, it } from 'vitest';
import { type Manifest, RELEASE_NAME, RELEASE_NAMESPACE, helm, parseManifests } from './support/helm.js';
import { CHART_DIR } from './support/paths.js';

async function defaultConnection(...apiVersions: string[]): Promise<Manifest> {
  const result = await helm([
    'template', RELEASE_NAME, CHART_DIR, '--namespace', RELEASE_NAMESPACE,
    '--set', 'connections.default.create=true',
    ...apiVersions.flatMap((version) => ['--api-versions', version]),
    '--show-only', 'templates/default-connection.yaml',
  ]);
  expect(result.code, result.stderr).toBe(0);
  const [manifest] = parseManifests(result.stdout, 'default-connection.yaml');
  if (!manifest) throw new Error('no ClusterPlatformConnection rendered');
  return manifest;
}

describe('connections.default.create', () => {
  it('is a post-install hook carrying the release ownership while the API is not served', async () => {
    const annotations = (await defaultConnection()).metadata.annotations ?? {};
    expect(annotations).toMatchObject({
      'helm.sh/hook': 'post-install,post-upgrade',
      'helm.sh/hook-delete-policy': 'before-hook-creation',
      'meta.helm.sh/release-name': RELEASE_NAME,
      'meta.helm.sh/release-namespace': RELEASE_NAMESPACE,
      'helm.sh/resource-policy': 'keep',
    });
  });

  it.each([
    ['group/version and Kind (Helm, recent Argo CD)', ['agentplatform.io/v1alpha1', 'agentplatform.io/v1alpha1/ClusterPlatformConnection', 'agentplatform.io/v1alpha1/AgentDeployment']],
    ['group/version only (Argo CD without kinds)', ['agentplatform.io/v1alpha1']],
  ])('is an ordinary object once the API is served: %s', async (_how, versions) => {
    const annotations = (await defaultConnection(...versions)).metadata.annotations ?? {};
    expect(annotations['helm.sh/hook']).toBeUndefined();
    expect(annotations['helm.sh/resource-policy']).toBe('keep');
  });

  it('stays a hook while the group is served without this kind (CRDs of an older release)', async () => {
    const annotations = (await defaultConnection('agentplatform.io/v1alpha1', 'agentplatform.io/v1alpha1/AgentDeployment')).metadata.annotations ?? {};
    expect(annotations['helm.sh/hook']).toBe('post-install,post-upgrade');
  });
});
