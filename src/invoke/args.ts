// `agent-operator invoke` arguments. The API key never comes from a flag value (it would
// show in `ps`): --api-key-file or AGENT_OPERATOR_API_KEY, exactly as the operator reads it.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, readApiKey } from '../operator/config.js';
import { parseHostPatterns, type HostPattern } from '../egress/host-patterns.js';

export const INVOKE_USAGE = `Usage: agent-operator invoke [-n <namespace>] <name> <message> [flags]

Sends <message> to the agent of the AgentDeployment <name> and prints its reply. The agent's
address is read from the object's status (status.url, else status.customUrl); the API key of
the default connection from --api-key-file or AGENT_OPERATOR_API_KEY, and the control plane
from --control-plane-url or --region, as the operator takes them.

The object's author chose that address, so your key goes there only when it is the control
plane's own, a URL the platform assigned (a repo_host deployment, as the control plane reports
it), or a host in --agent-hosts; --trust-agent-url sends it anyway.

  -n, --namespace <ns>        the object's namespace (default "default")
      --kubeconfig <path>     kubeconfig to use (default: KUBECONFIG, then ~/.kube/config)
      --api-key-file <path>   file holding the API key (default: AGENT_OPERATOR_API_KEY)
      --stream                print the agent's updates as they arrive
      --thread <id>|new       continue a conversation, or start one (its id is printed)
      --assistant <id>        the assistant or graph to run (default "agent")
      --timeout <seconds>     give up after this long (default 60)
      --control-plane-url <u> AGENT_OPERATOR_CONTROL_PLANE_URL (default: the --region's)
      --region us|eu          AGENT_OPERATOR_REGION (default us)
      --agent-hosts h,*.d     AGENT_OPERATOR_AGENT_HOSTS: agent hosts you trust with your key
      --trust-agent-url       send your key to whatever address the object names
  -h, --help                  show this help

Examples:
  agent-operator invoke -n agents-demo support-bot "hello"
  agent-operator invoke -n agents-demo support-bot --stream "summarise my last order"
  agent-operator invoke -n agents-demo support-bot --thread new "my name is Ada"
  agent-operator invoke -n agents-demo support-bot --thread 5f0c…e2 "what is my name?"

Exit codes: 0 the agent answered; 1 the call failed (not found, no URL yet, key refused,
the agent raised, timeout); 2 bad arguments.
`;

export interface InvokeArgs {
  namespace: string;
  name: string;
  message: string;
  kubeconfig?: string;
  apiKey: string;
  stream: boolean;
  /** undefined: stateless; 'new': create a thread; otherwise a thread id. */
  thread?: string;
  assistant: string;
  timeoutMs: number;
  controlPlaneUrl?: string;
  region: 'us' | 'eu';
  agentHosts: HostPattern[];
  trustAgentUrl: boolean;
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DEFAULT_TIMEOUT_SECONDS = 60;

export function parseInvokeArgs(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): InvokeArgs | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      namespace: { type: 'string', short: 'n' },
      kubeconfig: { type: 'string' },
      'api-key-file': { type: 'string' },
      stream: { type: 'boolean' },
      thread: { type: 'string' },
      assistant: { type: 'string' },
      timeout: { type: 'string' },
      'control-plane-url': { type: 'string' },
      region: { type: 'string' },
      'agent-hosts': { type: 'string' },
      'trust-agent-url': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: true,
  });
  if (values.help) return 'help';
  const [name, message, ...extra] = positionals;
  if (name === undefined || message === undefined) {
    throw new UsageError(
      'give the AgentDeployment name and the message, e.g. invoke -n team-a support-bot "hello"',
    );
  }
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0] ?? ''}": quote the message`);
  if (message.trim() === '') throw new UsageError('the message must not be empty');
  const thread = values.thread;
  if (thread !== undefined && thread !== 'new' && !UUID.test(thread)) {
    throw new UsageError(`--thread must be a thread id (a uuid) or "new"; got "${thread}"`);
  }
  const timeoutSeconds = values.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
    throw new UsageError(`--timeout must be a number of seconds > 0; got "${values.timeout ?? ''}"`);
  }
  const region = values.region ?? nonEmpty(env.AGENT_OPERATOR_REGION) ?? 'us';
  if (region !== 'us' && region !== 'eu')
    throw new UsageError(`--region must be "us" or "eu"; got "${region}"`);
  const controlPlaneUrl = values['control-plane-url'] ?? nonEmpty(env.AGENT_OPERATOR_CONTROL_PLANE_URL);
  if (controlPlaneUrl !== undefined && !URL.canParse(controlPlaneUrl)) {
    throw new UsageError(`--control-plane-url must be a URL; got "${controlPlaneUrl}"`);
  }
  let agentHosts: HostPattern[];
  try {
    const text = values['agent-hosts'] ?? env.AGENT_OPERATOR_AGENT_HOSTS ?? '';
    agentHosts = parseHostPatterns(
      text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
      '--agent-hosts',
    );
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  let apiKey: string;
  try {
    apiKey = readApiKey(values['api-key-file'], env, readFile);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
  return {
    namespace: values.namespace ?? 'default',
    name,
    message,
    ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
    apiKey,
    stream: values.stream ?? false,
    ...(thread !== undefined ? { thread } : {}),
    assistant: values.assistant ?? 'agent',
    timeoutMs: timeoutSeconds * 1000,
    ...(controlPlaneUrl === undefined ? {} : { controlPlaneUrl }),
    region,
    agentHosts,
    trustAgentUrl: values['trust-agent-url'] ?? false,
  };
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}
