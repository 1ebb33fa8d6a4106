// `agent-operator emulate kube`: serves the emulator until SIGINT/SIGTERM, printing its URL.
import { parseArgs } from 'node:util';
import { createLogger } from '../../observability/logger.js';
import { startKubeEmulator } from './index.js';

const USAGE = `Usage: agent-operator emulate kube [flags]

Serves a Kubernetes API server emulator (plain HTTP) and prints its URL on one line.
  --port               port to listen on (default 0: any free port)
  --host               address to listen on (default 127.0.0.1)
  --write-kubeconfig   write a kubeconfig (context "emulator") pointing at it
  --watch-history      changes kept per resource for resuming watches (default 1000)
  --log-level          silent | error | warn | info | debug (default info, to stderr)
  -h, --help           show this help

Examples:
  agent-operator emulate kube --write-kubeconfig ./kubeconfig
  agent-operator emulate kube --port 6443 --write-kubeconfig ./kubeconfig --log-level warn
  kubectl --kubeconfig ./kubeconfig apply -f crds/
Faults: POST /_emulator/faults, see docs/kube-emulator.md.`;

function integerFlag(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value))
    throw new Error(`--${name}: must be a non-negative integer, got ${JSON.stringify(value)}`);
  return Number(value);
}

export async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'write-kubeconfig': { type: 'string' },
        'watch-history': { type: 'string' },
        'log-level': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const level = values['log-level'] ?? 'info';
  if (!['silent', 'error', 'warn', 'info', 'debug', 'trace'].includes(level)) {
    process.stderr.write(`--log-level: must be one of silent, error, warn, info, debug, trace\n`);
    return 2;
  }
  let port: number;
  let watchHistory: number;
  try {
    port = integerFlag(values.port, 'port', 0);
    watchHistory = integerFlag(values['watch-history'], 'watch-history', 1000);
    if (port > 65535) throw new Error('--port: must be at most 65535');
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const emulator = await startKubeEmulator({
    port,
    host: values.host ?? '127.0.0.1',
    watchHistory,
    ...(values['write-kubeconfig'] ? { kubeconfigPath: values['write-kubeconfig'] } : {}),
    logger: createLogger({ level: level as 'info', name: 'kube-emulator' }),
  });
  process.stdout.write(`${emulator.url}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await emulator.close();
  return 0;
}
