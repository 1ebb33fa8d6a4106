// Which cluster, as whom, and in which namespace a command works, read the way kubectl reads
// them: --kubeconfig, else the files in KUBECONFIG (merged: the first file to name a context
// or the current context wins), else ~/.kube/config; --context, else the current context; and
// the namespace of that context, else "default". An explicit -n always wins over it.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import yaml from 'js-yaml';
import { loadClusterAccess, type ClusterAccess } from '../runtime/kube/cluster-access.js';

export interface KubeconfigFlags {
  kubeconfig?: string;
  context?: string;
}

export interface KubeTarget {
  access: ClusterAccess;
  /** The context's namespace, "default" when it names none (or in a cluster, the pod's). */
  namespace: string;
  /** The kubeconfig file (or files) read; "in-cluster" inside a pod. */
  origin: string;
  /** The context used; undefined inside a pod. */
  context?: string;
}

export class KubeconfigError extends Error {
  override readonly name = 'KubeconfigError';
}

/** The kubeconfig usage lines every command that reads one shows. */
export const KUBECONFIG_FLAGS_HELP = [
  '      --kubeconfig <path>     kubeconfig to use (default: KUBECONFIG, then ~/.kube/config)',
  '      --context <name>        a context of that kubeconfig (default: its current-context)',
].join('\n');

interface ContextEntry {
  name?: unknown;
  context?: { namespace?: unknown } | null;
}
interface KubeconfigFile {
  contexts?: ContextEntry[] | null;
  'current-context'?: unknown;
}

const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** The kubeconfig files a command reads, in kubectl's order of precedence. */
export function kubeconfigPaths(flags: KubeconfigFlags, env: NodeJS.ProcessEnv = process.env): string[] {
  if (flags.kubeconfig !== undefined) return [flags.kubeconfig];
  const fromEnv = (env.KUBECONFIG ?? '').split(delimiter).filter((path) => path !== '');
  return fromEnv.length > 0 ? fromEnv : [join(homedir(), '.kube', 'config')];
}

/** The context a command uses and its namespace, without connecting to anything. */
export function kubeconfigContext(
  flags: KubeconfigFlags,
  env: NodeJS.ProcessEnv = process.env,
): { paths: string[]; context: string; namespace: string } {
  const paths = kubeconfigPaths(flags, env);
  const files = paths
    .filter((path) => flags.kubeconfig !== undefined || existsSync(path))
    .map((path) => ({ path, file: readKubeconfig(path) }));
  if (files.length === 0) throw new KubeconfigError(`no kubeconfig at ${paths.join(delimiter)}`);
  const current = files
    .map(({ file }) => file['current-context'])
    .find((name): name is string => typeof name === 'string' && name !== '');
  const context = flags.context ?? current;
  const where = files.map(({ path }) => path).join(delimiter);
  if (context === undefined) {
    throw new KubeconfigError(`kubeconfig ${where} has no current-context: pass --context <name>`);
  }
  const entry = files
    .flatMap(({ file }) => file.contexts ?? [])
    .find((candidate) => candidate.name === context);
  if (entry === undefined) {
    throw new KubeconfigError(
      `${flags.context === undefined ? 'current-context' : '--context'}: no context named "${context}" in ${where}`,
    );
  }
  const namespace = entry.context?.namespace;
  return {
    paths: files.map(({ path }) => path),
    context,
    namespace: typeof namespace === 'string' && namespace !== '' ? namespace : 'default',
  };
}

/** Loads the cluster access a command's flags name, with the namespace kubectl would default to. */
export async function loadKubeTarget(
  flags: KubeconfigFlags,
  env: NodeJS.ProcessEnv = process.env,
): Promise<KubeTarget> {
  const inPod =
    flags.kubeconfig === undefined &&
    flags.context === undefined &&
    env.KUBERNETES_SERVICE_HOST !== undefined &&
    !kubeconfigPaths(flags, env).some((path) => existsSync(path));
  if (inPod) {
    return {
      access: await loadClusterAccess({ kind: 'in-cluster' }),
      namespace: podNamespace(),
      origin: 'in-cluster',
    };
  }
  const { paths, context, namespace } = kubeconfigContext(flags, env);
  const origin = paths.join(delimiter);
  let access: ClusterAccess;
  try {
    if (paths.length === 1) {
      access = await loadClusterAccess({ kind: 'file', path: paths[0] ?? '', context });
    } else {
      // Several files merged: client-node's KubeConfig merges them as kubectl does.
      const { loadKubeConfig } = await import('../runtime/kube/kubeconfig.js');
      const merged = loadKubeConfig({ kind: 'default' });
      merged.setCurrentContext(context);
      access = merged;
    }
  } catch (error) {
    throw new KubeconfigError(
      `cannot load the kubeconfig ${origin} (context "${context}"): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return { access, namespace, origin, context };
}

function readKubeconfig(path: string): KubeconfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unreadable';
    throw new KubeconfigError(`cannot read the kubeconfig "${path}" (${code})`);
  }
  const parsed: unknown = yaml.load(text);
  return typeof parsed === 'object' && parsed !== null ? (parsed as KubeconfigFile) : {};
}

function podNamespace(): string {
  try {
    const namespace = readFileSync(SERVICE_ACCOUNT_NAMESPACE, 'utf8').trim();
    return namespace === '' ? 'default' : namespace;
  } catch {
    return 'default';
  }
}
