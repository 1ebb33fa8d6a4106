// Starts the project's Kubernetes API emulator (src/sim/kube) and writes a kubeconfig for
// the real kubectl. The emulator is loaded by path at run time so that this suite reports
// "not available" instead of failing to compile while the emulator is still being written.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KUBECTL, REPO_ROOT, requireTool } from './paths.js';
import { type RunResult, run } from './run.js';

export interface KubeUnderTest {
  url: string;
  kubeconfig: string;
  kubectl(args: string[], input?: string): Promise<RunResult>;
  stop(): Promise<void>;
}

interface StartedEmulator {
  url: string;
  close(): Promise<void>;
}

function asStartedEmulator(value: unknown): StartedEmulator | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const candidate = value as Record<string, unknown>;
  const url = candidate['url'] ?? candidate['baseUrl'];
  const close = candidate['close'] ?? candidate['stop'];
  if (typeof url !== 'string' || typeof close !== 'function') return undefined;
  return { url, close: () => Promise.resolve((close as () => unknown).call(value)).then(() => undefined) };
}

/** Resolves to the running emulator, or to the reason it cannot be started. */
export async function startKube(): Promise<KubeUnderTest | string> {
  const modulePath = join(REPO_ROOT, 'src', 'sim', 'kube', 'index.ts');
  let start: unknown;
  try {
    const loaded = (await import(modulePath)) as Record<string, unknown>;
    start = loaded['startKubeEmulator'];
  } catch (error: unknown) {
    return `the Kubernetes emulator (src/sim/kube/index.ts) cannot be loaded: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (typeof start !== 'function') return 'src/sim/kube/index.ts exports no startKubeEmulator function';
  const emulator = asStartedEmulator(await (start as (options: object) => Promise<unknown>)({ port: 0 }));
  if (!emulator) return 'startKubeEmulator() resolved to something without url and close()';
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
