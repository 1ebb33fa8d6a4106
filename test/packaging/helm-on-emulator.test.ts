// The real helm installing, upgrading and uninstalling the chart on the project's Kubernetes
// API emulator: NOTES.txt as the user sees it, an upgrade that changes the watch mode, and
// the CRD keep policy honoured by helm itself.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RELEASE_NAME, RELEASE_NAMESPACE } from './support/helm.js';
import { startKube } from './support/kube-emulator.js';
import { CHART_DIR, HELM, requireTool } from './support/paths.js';
import { run } from './support/run.js';

const kube = await startKube();
// helm's own home (discovery cache, config): a temp folder removed afterwards, so that no
// run leaves ~/.kube/cache or a folder under a made-up HOME behind.
const helmHome = await mkdtemp(join(tmpdir(), 'helm-home-'));
afterAll(async () => {
  await rm(helmHome, { recursive: true, force: true });
});

describe('helm install / upgrade / uninstall on the Kubernetes emulator', () => {
  afterAll(async () => {
    await kube.stop();
  });

  function helm(args: string[]) {
    return run(requireTool(HELM), ['--kubeconfig', kube.kubeconfig, ...args], {
      env: { ...process.env, KUBECONFIG: kube.kubeconfig, HOME: helmHome },
    });
  }

  async function kubectlOut(args: string[]): Promise<string> {
    const result = await kube.kubectl(args);
    expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
    return result.stdout;
  }

  it('installs the chart and prints what to do next', async () => {
    const result = await helm([
      'install',
      RELEASE_NAME,
      CHART_DIR,
      '--namespace',
      RELEASE_NAMESPACE,
      '--create-namespace',
      '--set',
      'podDisruptionBudget.enabled=true',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('STATUS: deployed');
    expect(result.stdout).toContain(
      `kubectl -n ${RELEASE_NAMESPACE} create secret generic agent-operator-credentials \\\n       --from-file=api-key=./api-key.txt`,
    );
    expect(result.stdout).toContain('kubectl apply -f examples/');
    // What a newcomer trips over first: the image is theirs to build, the example ids are the emulator's.
    expect(result.stdout).toMatch(/no image is published, so\s+build it/);
    expect(result.stdout).toMatch(/listenerId and integrationId exist only in the control-plane emulator/);
    expect(result.stdout).toContain('kubectl get agd -A -w');
    expect(result.stdout).toMatch(
      /WARNING: podDisruptionBudget.minAvailable \(1\) is not below replicaCount/,
    );
    expect(await kubectlOut(['get', 'crd', 'agentdeployments.agentplatform.io', '-o', 'name'])).toContain(
      'agentdeployments',
    );
    expect(
      await kubectlOut(['-n', RELEASE_NAMESPACE, 'get', 'deployment', RELEASE_NAME, '-o', 'name']),
    ).toContain(RELEASE_NAME);
  });

  it('upgrades from cluster-wide to namespaced RBAC, removing the ClusterRole', async () => {
    for (const namespace of ['team-a', 'team-b']) {
      const created = await kube.kubectl(
        ['apply', '-f', '-'],
        `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"${namespace}"}}`,
      );
      expect(created.code, created.stderr).toBe(0);
    }
    const result = await helm([
      'upgrade',
      RELEASE_NAME,
      CHART_DIR,
      '--namespace',
      RELEASE_NAMESPACE,
      '--set',
      'watchNamespaces={team-a,team-b}',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('REVISION: 2');
    expect(result.stdout).toContain('Watching: team-a, team-b');
    // The tenancy defaults, as the user reads them after an install.
    expect(result.stdout).toContain(
      `Tenancy: adoption from no namespace (each adopts back its own orphans); data deletion through the default connection from ${RELEASE_NAMESPACE}; the operator's key goes to agent hosts assigned by the platform only.`,
    );
    const clusterRoles = await kube.kubectl(['get', 'clusterrole', RELEASE_NAME]);
    expect(clusterRoles.code).not.toBe(0);
    expect(await kubectlOut(['-n', 'team-a', 'get', 'role', RELEASE_NAME, '-o', 'name'])).toContain(
      RELEASE_NAME,
    );
    const args = await kubectlOut([
      '-n',
      RELEASE_NAMESPACE,
      'get',
      'deployment',
      RELEASE_NAME,
      '-o',
      'jsonpath={.spec.template.spec.containers[0].args}',
    ]);
    expect(args).toContain('--namespaces=team-a,team-b');
  });

  it('uninstalls everything but the CRDs, exits 0 and leaves no release record', async () => {
    const result = await helm(['uninstall', RELEASE_NAME, '--namespace', RELEASE_NAMESPACE]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /kept due to the resource policy:[\s\S]*\[CustomResourceDefinition\] agentdeployments.agentplatform.io/,
    );
    expect(await kubectlOut(['get', 'crd', 'agentdeployments.agentplatform.io', '-o', 'name'])).toContain(
      'agentdeployments',
    );
    const deployment = await kube.kubectl(['-n', RELEASE_NAMESPACE, 'get', 'deployment', RELEASE_NAME]);
    expect(deployment.code).not.toBe(0);
    expect(deployment.stderr).toMatch(/NotFound|not found/);
    // helm keeps its release history in Secrets labelled owner=helm; uninstall purges them.
    const records = await kubectlOut([
      '-n',
      RELEASE_NAMESPACE,
      'get',
      'secret',
      '-l',
      'owner=helm',
      '-o',
      'name',
    ]);
    expect(records).toBe('');
  });
});
