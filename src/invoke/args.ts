// `agent-operator invoke` arguments. The API key never comes from a flag value (it would
// show in `ps`): --api-key-file or AGENT_OPERATOR_API_KEY, exactly as the operator reads it.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DURATION_RULE, parseDurationFlag } from '../command-line/duration-flag.js';
import { flagProblem } from '../command-line/flag-error.js';
import { ConfigError, readApiKey } from '../operator/config.js';
import { parseHostPatterns, type HostPattern } from '../egress/host-patterns.js';
import { parseHeaderFromSecret, type HeaderFromSecret } from './headers.js';

export const INVOKE_USAGE = `Usage: agent-operator invoke [-n <namespace>] <name> <message> [flags]

Sends <message> to the agent of the AgentDeployment <name> and prints its reply. The agent's
address is read from the object's status (status.url, else status.customUrl).

The key: when the object names a connection (spec.connectionRef), that connection's, read from
its key Secret with your kubeconfig, and sent only where that connection trusts (its own API
addresses, a URL the platform assigned, its spec.agentHosts). Otherwise your key, from
--api-key-file or AGENT_OPERATOR_API_KEY, with the control plane from --control-plane-url or
--region, as the operator takes them; it goes only to the control plane's own address, a URL
the platform assigned, or a host in --agent-hosts; --trust-agent-url sends it anyway.

  -n, --namespace <ns>        the object's namespace (default: the context's, else "default")
      --kubeconfig <path>     kubeconfig to use (default: KUBECONFIG, then ~/.kube/config)
      --context <name>        a context of that kubeconfig (default: its current-context)
      --api-key-file <path>   file holding your API key (default: AGENT_OPERATOR_API_KEY)
      --stream                print the agent's updates as they arrive
      --thread <id>|new       continue a conversation, or start one (its id is printed)
      --assistant <id>        the assistant or graph to run (default "agent")
      --timeout <duration>    give up after this long: 30s, 2m; a bare number is seconds (default 60s)
      --control-plane-url <u> AGENT_OPERATOR_CONTROL_PLANE_URL (default: the --region's)
      --region us|eu          AGENT_OPERATOR_REGION (default us)
      --agent-hosts h,*.d     AGENT_OPERATOR_AGENT_HOSTS: agent hosts you trust with your key
      --trust-agent-url       send your key to whatever address the object names
      --operator-namespace <ns>  where ClusterPlatformConnection keys live (default agent-operator-system)
      --header-from-secret NAME=SECRET/KEY
                              send header NAME with the value of KEY in the Secret SECRET of the
                              object's namespace (read with your kubeconfig); repeatable. For an
                              agent with custom authentication. Not x-api-key, x-auth-scheme,
                              authorization, x-tenant-id, nor an HTTP framing header.
  -h, --help                  show this help

Examples:
  agent-operator invoke -n agents-demo support-bot "hello"
  agent-operator invoke -n agents-demo support-bot --stream "summarise my last order"
  agent-operator invoke -n agents-demo support-bot --thread new "my name is Ada"
  agent-operator invoke -n agents-demo support-bot --thread 5f0c…e2 "what is my name?"
  agent-operator invoke --context staging support-bot --timeout 2m "hello"
  agent-operator invoke -n agents-demo support-bot --header-from-secret x-user-token=agent-auth/token "hello"

Exit codes: 0 the agent answered; 1 the call failed (not found, no URL yet, a connection it
may not use, key refused, the agent raised, timeout); 2 bad arguments.
`;

export interface InvokeArgs {
  /** -n; absent: the kubeconfig context's namespace. */
  namespace?: string;
  name: string;
  message: string;
  kubeconfig?: string;
  context?: string;
  /** The user's key; needed only for an object without spec.connectionRef. */
  apiKey?: string;
  /** Why there is no user key (the error to show if one is needed). */
  apiKeyProblem?: string;
  operatorNamespace: string;
  stream: boolean;
  /** undefined: stateless; 'new': create a thread; otherwise a thread id. */
  thread?: string;
  assistant: string;
  timeoutMs: number;
  controlPlaneUrl?: string;
  region: 'us' | 'eu';
  agentHosts: HostPattern[];
  trustAgentUrl: boolean;
  /** --header-from-secret: headers whose values are read from Secrets of the object's namespace. */
  headersFromSecrets: HeaderFromSecret[];
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DEFAULT_TIMEOUT = '60s';

export function parseInvokeArgs(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): InvokeArgs | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        namespace: { type: 'string', short: 'n' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        'operator-namespace': { type: 'string' },
        'api-key-file': { type: 'string' },
        stream: { type: 'boolean' },
        thread: { type: 'string' },
        assistant: { type: 'string' },
        timeout: { type: 'string' },
        'control-plane-url': { type: 'string' },
        region: { type: 'string' },
        'agent-hosts': { type: 'string' },
        'trust-agent-url': { type: 'boolean' },
        'header-from-secret': { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError(flagProblem(error));
  }
  const { values, positionals } = parsed;
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
  const timeoutMs = parseDurationFlag(values.timeout ?? DEFAULT_TIMEOUT);
  if (timeoutMs === undefined || timeoutMs <= 0) {
    throw new UsageError(`--timeout must be ${DURATION_RULE}, more than 0; got "${values.timeout ?? ''}"`);
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
  const headersFromSecrets: HeaderFromSecret[] = [];
  for (const value of values['header-from-secret'] ?? []) {
    const parsed = parseHeaderFromSecret(value);
    if ('problem' in parsed) throw new UsageError(parsed.problem);
    if (headersFromSecrets.some((header) => header.name.toLowerCase() === parsed.name.toLowerCase())) {
      throw new UsageError(`--header-from-secret names header "${parsed.name}" twice`);
    }
    headersFromSecrets.push(parsed);
  }
  // Read now (a bad --api-key-file is a usage error), needed later only for an object without
  // spec.connectionRef: one that names a connection is called with that connection's key.
  let key: { apiKey: string } | { apiKeyProblem: string };
  try {
    key = { apiKey: readApiKey(values['api-key-file'], env, readFile) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (values['api-key-file'] !== undefined) throw new UsageError(error.message);
    key = { apiKeyProblem: error.message };
  }
  return {
    ...(values.namespace !== undefined ? { namespace: values.namespace } : {}),
    name,
    message,
    ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
    ...(values.context !== undefined ? { context: values.context } : {}),
    ...key,
    operatorNamespace: values['operator-namespace'] ?? 'agent-operator-system',
    stream: values.stream ?? false,
    ...(thread !== undefined ? { thread } : {}),
    assistant: values.assistant ?? 'agent',
    timeoutMs,
    ...(controlPlaneUrl === undefined ? {} : { controlPlaneUrl }),
    region,
    agentHosts,
    trustAgentUrl: values['trust-agent-url'] ?? false,
    headersFromSecrets,
  };
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}
