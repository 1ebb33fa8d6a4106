// Starts the project's Kubernetes API emulator (src/sim/kube) and writes a kubeconfig for
// the real kubectl. An emulator that does not start is a failure of the suite, never a skip:
// a skipped conformance suite would hide exactly the defect it exists to catch.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKubeEmulator } from '../../../src/sim/kube/index.js';
import { KUBECTL, requireTool } from './paths.js';
import { type RunResult, run } from './run.js';

export interface KubeUnderTest {
  url: string;
  kubeconfig: string;
  kubectl(args: string[], input?: string): Promise<RunResult>;
  stop(): Promise<void>;
}

/** Resolves to the running emulator; rejects (failing the suite) when it cannot be started. */
export async function startKube(): Promise<KubeUnderTest> {
  const emulator = await startKubeEmulator({ port: 0 });
  const dir = await mkdtemp(join(tmpdir(), 'kube-emulator-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `  - name: emulator`,
      `    cluster: { server: "${emulator.url}" }`,
      'users:',
      '  - name: emulator',
      '    user: { token: emulator }',
      'contexts:',
      '  - name: emulator',
      '    context: { cluster: emulator, user: emulator }',
      'current-context: emulator',
      '',
    ].join('\n'),
  );
  const kubectl = requireTool(KUBECTL);
  return {
    url: emulator.url,
    kubeconfig,
    kubectl: (args, input) =>
      run(kubectl, ['--kubeconfig', kubeconfig, '--request-timeout=20s', ...args], {
        env: { ...process.env, KUBECONFIG: kubeconfig, HOME: dir },
        ...(input === undefined ? {} : { input }),
      }),
    stop: async () => {
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
