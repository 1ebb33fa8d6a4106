// `agent-operator connection check <name> [-n namespace | --cluster]`.
import { parseArgs } from 'node:util';
import { flagErrorLine, flagProblem, USAGE_EXIT_CODE } from '../command-line/flag-error.js';
import { loadKubeTarget, type KubeTarget } from '../command-line/kubeconfig.js';
import { kubeClientFrom } from '../runtime/kube/cluster-access.js';
import { checkConnection, type CheckLine } from './check.js';

const USAGE = `Usage: agent-operator connection check <name> [flags]

Checks a connection from here, with your kubeconfig: its key Secret, that the key
authenticates, that the platform API (and the private domain) answer /ok, and what the
operator last reported. Prints one line per check; exits 1 when any fails.

  -n, --namespace <ns>          the PlatformConnection's namespace (default: the context's, else "default")
  --cluster                     check the ClusterPlatformConnection <name> instead
  --operator-namespace <ns>     where ClusterPlatformConnection keys live (default agent-operator-system)
  --kubeconfig <path>           default: KUBECONFIG, then ~/.kube/config
  --context <name>              a context of that kubeconfig (default: its current-context)
  -h, --help                    show this help

Examples:
  agent-operator connection check -n team-a eu
  agent-operator connection check --cluster us --context prod
`;

export interface CheckIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const processIo: CheckIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

export async function main(argv: string[], io: CheckIo = processIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        namespace: { type: 'string', short: 'n' },
        cluster: { type: 'boolean' },
        'operator-namespace': { type: 'string' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    io.stderr(flagErrorLine('connection check', flagProblem(error)));
    return USAGE_EXIT_CODE;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (positionals[0] !== 'check' || positionals.length !== 2) {
    io.stderr(flagErrorLine('connection check', 'expected "check <name>"'));
    return USAGE_EXIT_CODE;
  }
  if (values.cluster === true && values.namespace !== undefined) {
    io.stderr(flagErrorLine('connection check', '--cluster and --namespace exclude each other'));
    return USAGE_EXIT_CODE;
  }
  let target: KubeTarget;
  try {
    target = await loadKubeTarget({
      ...(values.kubeconfig === undefined ? {} : { kubeconfig: values.kubeconfig }),
      ...(values.context === undefined ? {} : { context: values.context }),
    });
  } catch (error) {
    io.stderr(`agent-operator connection check: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const { client, transport } = kubeClientFrom(target.access);
  try {
    const lines = await checkConnection(client, {
      kind: values.cluster === true ? 'ClusterPlatformConnection' : 'PlatformConnection',
      // kubectl's rule: -n, else the namespace of the kubeconfig's context.
      namespace: values.namespace ?? target.namespace,
      name: positionals[1] ?? '',
      operatorNamespace: values['operator-namespace'] ?? 'agent-operator-system',
    });
    io.stdout(lines.map(format).join(''));
    return lines.every((line) => line.ok) ? 0 : 1;
  } finally {
    transport.close?.();
  }
}

function format(line: CheckLine): string {
  return `${line.ok ? 'OK  ' : 'FAIL'} ${line.text}\n`;
}
