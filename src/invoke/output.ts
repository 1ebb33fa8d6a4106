// What `invoke` prints: the agent's reply text, the AI messages of each streamed update as
// it arrives, and one line per failure that says what went wrong in the user's terms.
import { lastAiText } from '../agentruntime/client.js';
import type { AgentCallError } from '../agentruntime/errors.js';

const FAILURE_SUMMARY: Record<AgentCallError['kind'], string> = {
  unauthorized: 'the agent refused the API key',
  forbidden: 'the agent refused the API key',
  'not-found': 'the agent answered 404 (an unknown thread, or a key of another workspace)',
  conflict: 'the thread is busy with another run',
  rejected: 'the agent rejected the request',
  unavailable: 'the agent is not available (no deployed revision yet, or overloaded)',
  graph: 'the agent failed',
  timeout: 'no answer in time',
  aborted: 'interrupted',
  unreachable: 'cannot reach the agent',
  protocol: 'the agent answered something unreadable',
};

export function describeFailure(error: AgentCallError, url: string): string {
  const where = error.kind === 'unreachable' ? ` at ${url}` : '';
  return `${FAILURE_SUMMARY[error.kind]}${where}: ${error.message}`;
}

export function replyText(values: Record<string, unknown>): string {
  return lastAiText(values) ?? JSON.stringify(values);
}

/** The AI messages' texts in one `updates` event: `{<node>: {messages: [...]}}`. */
export function updateTexts(data: unknown): string[] {
  if (typeof data !== 'object' || data === null) return [];
  const texts: string[] = [];
  for (const update of Object.values(data)) {
    const messages = (update as { messages?: unknown } | null)?.messages;
    if (!Array.isArray(messages)) continue;
    for (const message of messages) {
      const text = lastAiText({ messages: [message] });
      if (text !== undefined) texts.push(text);
    }
  }
  return texts;
}
