// `agent-operator run`: the operator process. Exits 0 after a clean shutdown on SIGTERM or
// SIGINT (drains reconciles, releases the lease), 2 on a configuration error, 1 otherwise.
import { delimiter } from 'node:path';
import { flagErrorLine, USAGE_EXIT_CODE } from '../command-line/flag-error.js';
import { loadKubeTarget } from '../command-line/kubeconfig.js';
import { createLogger } from '../observability/logger.js';
import { ConfigError, RUN_USAGE, parseOperatorConfig, type OperatorConfig } from './config.js';
import { startHeapSettle } from './heap-settle.js';
import { startOperator } from './operator.js';

const RUN_EXAMPLES = `
Examples:
  AGENT_OPERATOR_API_KEY=... agent-operator run --region eu
  agent-operator run --api-key-file /etc/agent-operator/api-key --namespaces team-a,team-b
  agent-operator run --kubeconfig ~/.kube/config --control-plane-url http://127.0.0.1:8000 --log-level debug
`;

export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseOperatorConfig>;
  try {
    parsed = parseOperatorConfig({ argv, env: process.env });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(flagErrorLine('run', error.message));
      return USAGE_EXIT_CODE;
    }
    throw error;
  }
  if (parsed.help) {
    process.stdout.write(`${RUN_USAGE}${RUN_EXAMPLES}`);
    return 0;
  }
  const { config } = parsed;
  const logger = createLogger({ level: config.logLevel, name: 'agent-operator' });
  const operator = await startOperator({ config, logger, ...(await contextAccess(config)) });
  const heapSettle = startHeapSettle(logger, operator.registry);

  const shutdown = new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  const reason = await Promise.race([shutdown, operator.done.then(() => 'manager stopped')]);
  logger.info({ reason }, 'shutting down');
  heapSettle?.stop();
  await operator.stop();
  logger.info('stopped');
  return 0;
}

/**
 * With --context, the cluster access of that context (the operator's own loader reads the
 * current one); without it, nothing: the operator loads in-cluster access or the kubeconfig.
 */
async function contextAccess(config: OperatorConfig) {
  if (config.context === undefined) return {};
  // KUBECONFIG may list several files: the loader merges them when no single path is given.
  const kubeconfig = config.kubeconfig?.includes(delimiter) === true ? undefined : config.kubeconfig;
  const target = await loadKubeTarget({
    ...(kubeconfig === undefined ? {} : { kubeconfig }),
    context: config.context,
  });
  return { kubeConfig: target.access };
}
