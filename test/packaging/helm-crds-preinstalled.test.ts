// The chart after `kubectl apply -f crds/`, as install.md describes it, with the real helm
// and kubectl on the Kubernetes emulator: a plain install is refused (Helm does not take
// over an object it did not create), `crds.install=false` installs, and so does an install
// after the CRD is handed to Helm with the label and annotations the docs give.
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RELEASE_NAME, RELEASE_NAMESPACE } from './support/helm.js';
import { type KubeUnderTest, startKube } from './support/kube-emulator.js';
import { CHART_DIR, HELM, REPO_ROOT, requireTool } from './support/paths.js';
import { run } from './support/run.js';

const CRD = 'agentdeployments.agentplatform.io';
// Every CRD the chart installs, by name: crds/ holds one file per CRD, named <group>_<plural>.yaml.
const ALL_CRDS = readdirSync(join(REPO_ROOT, 'crds'))
  .filter((file) => file.endsWith('.yaml'))
  .map((file) => {
    const [group = '', plural = ''] = file.replace(/\.yaml$/, '').split('_');
    return `${plural}.${group}`;
  });
let kube: KubeUnderTest;
let helmHome: string;

beforeEach(async () => {
  kube = await startKube();
  helmHome = await mkdtemp(join(tmpdir(), 'helm-home-'));
  const applied = await kube.kubectl(['apply', '-f', join(REPO_ROOT, 'crds')]);
  expect(applied.code, applied.stderr).toBe(0);
});

afterEach(async () => {
  await kube.stop();
  await rm(helmHome, { recursive: true, force: true });
});

function helmInstall(...set: string[]) {
  return run(
    requireTool(HELM),
    [
      '--kubeconfig',
      kube.kubeconfig,
      'install',
      RELEASE_NAME,
      CHART_DIR,
      '--namespace',
      RELEASE_NAMESPACE,
      '--create-namespace',
      ...set.flatMap((assignment) => ['--set', assignment]),
    ],
    { env: { ...process.env, KUBECONFIG: kube.kubeconfig, HOME: helmHome } },
  );
}

describe('helm install after kubectl apply -f crds/', () => {
  it('is refused with the error the docs quote, and succeeds with crds.install=false', async () => {
    const refused = await helmInstall();
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      `CustomResourceDefinition "${CRD}" in namespace "" exists and cannot be imported into the current release`,
    );

    const installed = await helmInstall('crds.install=false');
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain('NOTE: crds.install is false');
  });

  it('succeeds with the CRDs once they are handed to Helm as the chart README shows', async () => {
    for (const args of [
      ['label', 'crd', ...ALL_CRDS, 'app.kubernetes.io/managed-by=Helm'],
      [
        'annotate',
        'crd',
        ...ALL_CRDS,
        `meta.helm.sh/release-name=${RELEASE_NAME}`,
        `meta.helm.sh/release-namespace=${RELEASE_NAMESPACE}`,
      ],
    ]) {
      const result = await kube.kubectl(args);
      expect(result.code, result.stderr).toBe(0);
    }
    const installed = await helmInstall();
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
  });
});
