// End to end on a real k3s (testcontainers): build the image, install the chart with Helm,
// run the control-plane emulator in the cluster from the same image, apply examples/ and
// wait for every AgentDeployment to be Ready. Needs a Docker engine; where there is none
// the suite is skipped and says so. It is never the only proof: the chart, the examples
// and the image are also checked by the other files in this folder.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { K3sContainer, type StartedK3sContainer } from '@testcontainers/k3s';
import { GenericContainer, getContainerRuntimeClient } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELEASE_NAME, RELEASE_NAMESPACE } from './support/helm.js';
import { CHART_DIR, EXAMPLES_DIR, HELM, KUBECTL, REPO_ROOT, requireTool } from './support/paths.js';
import { run } from './support/run.js';

const K3S_IMAGE = 'rancher/k3s:v1.31.4-k3s1';
const OPERATOR_IMAGE = 'agent-operator:e2e';
const E2E_TIMEOUT_MS = 15 * 60_000;

async function dockerAbsenceReason(): Promise<string | undefined> {
  try {
    await getContainerRuntimeClient();
    return undefined;
  } catch (error: unknown) {
    return `no Docker engine found (${error instanceof Error ? error.message : String(error)})`;
  }
}

const absent = await dockerAbsenceReason();
if (absent) console.warn(`SKIPPED the k3s end-to-end suite: ${absent}`);

/** The control-plane emulator, run in the cluster from the operator's own image. */
const CONTROL_PLANE_MANIFEST = `
apiVersion: v1
kind: Namespace
metadata: { name: control-plane }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: control-plane, namespace: control-plane }
spec:
  selector: { matchLabels: { app: control-plane } }
  template:
    metadata: { labels: { app: control-plane } }
    spec:
      containers:
        - name: emulator
          image: ${OPERATOR_IMAGE}
          imagePullPolicy: Never
          args: [emulate, control-plane, --port, "8080", --host, 0.0.0.0, --revision-phase-ms, "200"]
          ports: [{ containerPort: 8080, name: http }]
---
apiVersion: v1
kind: Service
metadata: { name: control-plane, namespace: control-plane }
spec:
  selector: { app: control-plane }
  ports: [{ port: 8080, targetPort: http }]
`;

describe.skipIf(absent !== undefined)('k3s end to end', () => {
  let k3s: StartedK3sContainer;
  let workDir: string;
  let kubeconfig: string;

  async function tool(binary: string, args: string[], input?: string): Promise<string> {
    const result = await run(requireTool(binary), ['--kubeconfig', kubeconfig, ...args], {
      env: { ...process.env, KUBECONFIG: kubeconfig },
      ...(input === undefined ? {} : { input }),
    });
    expect(result.code, `${binary} ${args.join(' ')}: ${result.stderr}`).toBe(0);
    return result.stdout;
  }

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'k3s-e2e-'));
    await GenericContainer.fromDockerfile(REPO_ROOT).build(OPERATOR_IMAGE, { deleteOnExit: false });
    k3s = await new K3sContainer(K3S_IMAGE).start();
    kubeconfig = join(workDir, 'kubeconfig');
    await writeFile(kubeconfig, k3s.getKubeConfig());
    // k3s runs its own containerd: hand it the image we just built.
    const imageTar = join(workDir, 'operator.tar');
    await promisify(execFile)('docker', ['save', OPERATOR_IMAGE, '-o', imageTar]);
    await k3s.copyFilesToContainer([{ source: imageTar, target: '/tmp/operator.tar' }]);
    const imported = await k3s.exec(['ctr', '-n', 'k8s.io', 'images', 'import', '/tmp/operator.tar']);
    expect(imported.exitCode, imported.output).toBe(0);
  }, E2E_TIMEOUT_MS);

  afterAll(async () => {
    await k3s?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it(
    'installs the chart and the operator becomes ready',
    async () => {
      await tool(KUBECTL, ['apply', '-f', '-'], CONTROL_PLANE_MANIFEST);
      await tool(KUBECTL, [
        '-n',
        'control-plane',
        'rollout',
        'status',
        'deployment/control-plane',
        '--timeout=180s',
      ]);
      await tool(KUBECTL, ['create', 'namespace', RELEASE_NAMESPACE]);
      await tool(KUBECTL, [
        '-n',
        RELEASE_NAMESPACE,
        'create',
        'secret',
        'generic',
        'agent-operator-credentials',
        '--from-literal=api-key=emulator-key',
      ]);
      await tool(HELM, [
        'install',
        RELEASE_NAME,
        CHART_DIR,
        '--namespace',
        RELEASE_NAMESPACE,
        '--wait',
        '--timeout',
        '5m',
        '--set',
        'image.repository=agent-operator',
        '--set',
        'image.tag=e2e',
        '--set',
        'image.pullPolicy=Never',
        '--set',
        'controlPlane.url=http://control-plane.control-plane.svc:8080',
        '--set',
        'resyncPeriod=30s',
      ]);
      const ready = await tool(KUBECTL, [
        '-n',
        RELEASE_NAMESPACE,
        'get',
        'deployment',
        RELEASE_NAME,
        '-o',
        'jsonpath={.status.readyReplicas}',
      ]);
      expect(ready).toBe('1');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'runs examples/ to Ready',
    async () => {
      await tool(KUBECTL, ['apply', '-f', EXAMPLES_DIR]);
      await tool(KUBECTL, [
        '-n',
        'agents-demo',
        'wait',
        'agd',
        '--all',
        '--for=condition=Ready',
        '--timeout=300s',
      ]);
      const ids = await tool(KUBECTL, [
        '-n',
        'agents-demo',
        'get',
        'agd',
        '-o',
        'jsonpath={.items[*].status.activeRevisionId}',
      ]);
      expect(ids.split(' ').filter((id) => id !== '')).toHaveLength(2);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'keeps the CRD, and so every AgentDeployment, after helm uninstall',
    async () => {
      await tool(HELM, ['uninstall', RELEASE_NAME, '--namespace', RELEASE_NAMESPACE, '--wait']);
      await tool(KUBECTL, ['get', 'crd', 'agentdeployments.agentplatform.io']);
      const names = await tool(KUBECTL, ['-n', 'agents-demo', 'get', 'agd', '-o', 'name']);
      expect(names.trim().split('\n')).toHaveLength(2);
    },
    E2E_TIMEOUT_MS,
  );
});
