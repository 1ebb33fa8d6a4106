// The demo's last step: the updated agent answers a message, through the same runtime
// client (the official SDK) and the same address (status.url) that `agent-operator invoke`
// uses, so the demo shows the whole path from a manifest to a reply.
import { AgentRuntimeClient, lastAiText } from '../agentruntime/client.js';
import { agentUrlOf } from '../invoke/target.js';
import type { KubeObject } from '../runtime/kube/objects.js';

/** The agent's reply to `message`, or an Error that says why there is none. */
export async function askAgent(
  object: KubeObject,
  apiKey: string,
  message: string,
  timeoutMs: number,
): Promise<string> {
  const url = agentUrlOf(object);
  if (!url) throw new Error(`${object.metadata.name} has no agent address in status (url, customUrl)`);
  const client = new AgentRuntimeClient({ url, apiKey, timeoutMs });
  const answer = await client.wait({ input: { messages: [{ role: 'user', content: message }] } });
  if (!answer.ok) throw new Error(`${object.metadata.name} did not answer: ${answer.error.message}`);
  return lastAiText(answer.value.values) ?? JSON.stringify(answer.value.values);
}
