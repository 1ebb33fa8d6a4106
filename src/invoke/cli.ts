// `agent-operator invoke`: sends one message to the agent behind an AgentDeployment and
// prints the reply (or, with --stream, each update as it arrives). Exit 0 when the agent
// answered, 1 when the call failed, 2 for bad arguments.
import { AgentRuntimeClient } from '../agentruntime/client.js';
import { INVOKE_USAGE, parseInvokeArgs, type InvokeArgs } from './args.js';
import { describeFailure, replyText, updateTexts } from './output.js';
import { TargetError, findAgent } from './target.js';
import { untrustedAgentUrl, untrustedConnectionUrl } from './trust.js';
import { readHeaderValues } from './headers.js';
import { agentKeyOf, resolveInvokeConnection, type InvokeConnection } from './connection.js';
import { flagErrorLine, USAGE_EXIT_CODE } from '../command-line/flag-error.js';
import { loadKubeTarget } from '../command-line/kubeconfig.js';
import { kubeClientFrom } from '../runtime/kube/cluster-access.js';

export interface InvokeIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
}

const processIo: InvokeIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
};

async function converse(args: InvokeArgs, io: InvokeIo, signal: AbortSignal): Promise<number> {
  const fail = (text: string): number => {
    io.stderr(`agent-operator invoke: ${text}\n`);
    return 1;
  };
  const target = await loadKubeTarget(
    {
      ...(args.kubeconfig === undefined ? {} : { kubeconfig: args.kubeconfig }),
      ...(args.context === undefined ? {} : { context: args.context }),
    },
    io.env,
  ).catch((error: unknown) => {
    throw new TargetError(error instanceof Error ? error.message : String(error));
  });
  // kubectl's rule: -n, else the namespace of the kubeconfig's context.
  const namespace = args.namespace ?? target.namespace;
  const { client: kube, transport } = kubeClientFrom(target.access);
  let connection: InvokeConnection | undefined;
  try {
    const { object, url, deploymentId } = await findAgent(kube, namespace, args.name, signal);
    connection = await resolveInvokeConnection(kube, object, args.operatorNamespace, signal);
    let apiKey: string;
    if (connection !== undefined) {
      const refused = await untrustedConnectionUrl({
        url,
        ...(deploymentId === undefined ? {} : { deploymentId }),
        connection: connection.resolved,
        controlPlane: connection.controlPlane,
        objectLabel: `agentdeployment ${namespace}/${args.name}`,
        signal,
      });
      if (refused !== undefined) return fail(refused);
      apiKey = agentKeyOf(connection.resolved.credentials);
    } else {
      if (args.apiKey === undefined) {
        io.stderr(
          flagErrorLine(
            'invoke',
            `agentdeployment ${namespace}/${args.name} uses the default connection, which needs your key: ${args.apiKeyProblem ?? ''}`,
          ),
        );
        return USAGE_EXIT_CODE;
      }
      apiKey = args.apiKey;
      const untrusted = await untrustedAgentUrl({
        url,
        ...(deploymentId === undefined ? {} : { deploymentId }),
        apiKey,
        ...(args.controlPlaneUrl === undefined ? {} : { controlPlaneUrl: args.controlPlaneUrl }),
        region: args.region,
        agentHosts: args.agentHosts,
        trustAgentUrl: args.trustAgentUrl,
        signal,
      });
      if (untrusted !== undefined) return fail(untrusted);
    }
    const headers = await readHeaderValues(kube, namespace, args.headersFromSecrets, signal);
    return await talk(args, io, url, apiKey, headers, signal, fail);
  } finally {
    transport.close();
    await connection?.close();
  }
}

async function talk(
  args: InvokeArgs,
  io: InvokeIo,
  url: string,
  apiKey: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  fail: (text: string) => number,
): Promise<number> {
  const client = new AgentRuntimeClient({ url, apiKey, headers, timeoutMs: args.timeoutMs });
  let threadId = args.thread;
  if (threadId === 'new') {
    const created = await client.createThread({ signal });
    if (!created.ok) return fail(describeFailure(created.error, url));
    threadId = created.value.threadId;
    io.stderr(`thread: ${threadId} (continue with --thread ${threadId})\n`);
  }
  const run = {
    input: { messages: [{ role: 'user', content: args.message }] },
    assistantId: args.assistant,
    signal,
    ...(threadId !== undefined ? { threadId } : {}),
  };
  if (args.stream) {
    for await (const item of client.stream({ ...run, streamMode: ['updates'] })) {
      if (item.kind === 'failed') return fail(describeFailure(item.error, url));
      if (item.event === 'updates') for (const text of updateTexts(item.data)) io.stdout(`${text}\n`);
    }
    return 0;
  }
  const answer = await client.wait(run);
  if (!answer.ok) return fail(describeFailure(answer.error, url));
  io.stdout(`${replyText(answer.value.values)}\n`);
  return 0;
}

export async function run(argv: string[], io: InvokeIo): Promise<number> {
  let args: InvokeArgs | 'help';
  try {
    args = parseInvokeArgs(argv, io.env);
  } catch (error) {
    io.stderr(flagErrorLine('invoke', error instanceof Error ? error.message : String(error)));
    return USAGE_EXIT_CODE;
  }
  if (args === 'help') {
    io.stdout(INVOKE_USAGE);
    return 0;
  }
  const controller = new AbortController();
  const interrupt = (): void => controller.abort();
  process.once('SIGINT', interrupt);
  try {
    return await converse(args, io, controller.signal);
  } catch (error) {
    if (error instanceof TargetError) {
      io.stderr(`agent-operator invoke: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    process.off('SIGINT', interrupt);
  }
}

export function main(argv: string[]): Promise<number> {
  return run(argv, processIo);
}
